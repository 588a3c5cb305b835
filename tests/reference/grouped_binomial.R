## Grouped binomial data: a proportion response with the numbers of trials as prior weights,
## R's glm(p ~ ..., weights = m, family = binomial), and the same model written
## glm(cbind(k, m - k) ~ ..., family = binomial).  For tests/models/test_grouped_binomial.py
## (streamreg's var_weights= with a proportion response).
## Run from the repository root:   Rscript tests/reference/grouped_binomial.R
## Writes tests/reference/data/grouped_binomial.csv (the data, generated here),
## tests/reference/grouped_binomial_coef.csv, grouped_binomial_glance.csv,
## grouped_binomial_obs.csv and grouped_binomial.session.txt.  Numbers have 17 significant digits.
source("tests/reference/common.R")

## 80 groups: trials m in 1..15 (some groups of one trial, so some p are 0 or 1), a fixed
## covariate z and six candidates x1..x6, of which x1 and x4 enter the true model.  Values are
## rounded to 3 decimals, so the CSV holds them exactly as generated.
set.seed(20221110)
n <- 80L
d <- data.frame(z = round(runif(n, -1, 1), 3))
for (j in 1:6) d[[paste0("x", j)]] <- round(rnorm(n), 3)
d$m <- sample(c(1L, 1L, 1L, 2:15), n, replace = TRUE)
eta <- -0.3 + 0.4 * d$z + 0.8 * d$x1 - 0.6 * d$x4
d$k <- rbinom(n, d$m, plogis(eta))
d$p <- d$k / d$m
write.csv(d[c("k", "m", "z", paste0("x", 1:6))], file.path(DATA_DIR, "grouped_binomial.csv"), row.names = FALSE)

## R reads the CSV back (the numbers pandas reads) and computes p there.
d <- read.csv(file.path(DATA_DIR, "grouped_binomial.csv"))
d$p <- d$k / d$m
stopifnot(all(d$k <= d$m), any(d$p == 0), any(d$p == 1), any(d$p > 0 & d$p < 1))

num <- function(x) ifelse(is.na(x), "", sprintf("%.17g", x))
write_num <- function(df, file) {
  df[] <- lapply(df, function(v) if (is.double(v)) num(v) else v)
  write.csv(df, file.path(REF, file), row.names = FALSE, na = "")
  message("wrote ", file.path(REF, file), " (", nrow(df), " rows)")
}

## The formulas: "selected" is the model streamreg selects with
## streamreg("p ~ z + stream(x*)", data, family = "binomial", var_weights = "m") (the test checks
## it); "fixed" is the model of the fixed term alone.
RHS <- c(selected = "z + x1 + x4", fixed = "z")
FORMS <- c(weights = "p", cbind = "cbind(k, m - k)")

## glm restarted at its own MLE converges in one step, so the standard errors come from the IRLS
## weights at the MLE, not at the iteration before the last (see broom_refit.R)
fit_at_mle <- function(f, weighted) {
  fit <- if (weighted) with_glm_warnings(glm(f, binomial, d, weights = m, control = CTL))$value
         else with_glm_warnings(glm(f, binomial, d, control = CTL))$value
  fit <- if (weighted) glm(f, binomial, d, weights = m, start = coef(fit), control = CTL)
         else glm(f, binomial, d, start = coef(fit), control = CTL)
  stopifnot(fit$converged, fit$iter == 1L)
  fit
}

coefs <- glances <- list()
for (model in names(RHS)) for (form in names(FORMS)) {
  fit <- fit_at_mle(as.formula(paste(FORMS[[form]], "~", RHS[[model]])), form == "weights")
  case <- paste(model, form, sep = "_")
  cf <- coef(summary(fit))
  coefs[[case]] <- data.frame(case = case, model = model, form = form, name = rownames(cf),
                              estimate = unname(cf[, 1]), std_error = unname(cf[, 2]),
                              statistic = unname(cf[, 3]), p_value = unname(cf[, 4]), stringsAsFactors = FALSE)
  ll <- logLik(fit)
  glances[[case]] <- data.frame(case = case, model = model, form = form, rhs = RHS[[model]],
                                null_deviance = fit$null.deviance, df_null = fit$df.null,
                                logLik = as.numeric(ll), df_logLik = attr(ll, "df"), AIC = AIC(fit),
                                BIC = BIC(fit), deviance = deviance(fit), df_residual = df.residual(fit),
                                nobs = nobs(fit), stringsAsFactors = FALSE)
}
## the two forms are one model
for (model in names(RHS)) {
  a <- glances[[paste0(model, "_weights")]]; b <- glances[[paste0(model, "_cbind")]]
  stopifnot(isTRUE(all.equal(a[, 5:13], b[, 5:13], tolerance = 1e-10, check.attributes = FALSE)))
}

## augment() of the selected model: broom's augment.glm columns (at the MLE, as above); the
## cbind() form gives the same numbers.
obs_of <- function(lhs, weighted) {
  fit <- fit_at_mle(as.formula(paste(lhs, "~", RHS[["selected"]])), weighted)
  infl <- influence(fit, do.coef = FALSE)
  link <- predict(fit, se.fit = TRUE)
  data.frame(row = seq_len(nrow(d)), fitted_link = unname(link$fit), se_fit_link = unname(link$se.fit),
             fitted_response = unname(fitted(fit)), resid_deviance = unname(residuals(fit, type = "deviance")),
             resid_pearson = unname(residuals(fit, type = "pearson")),
             std_resid_deviance = unname(rstandard(fit, infl = infl, type = "deviance")),
             hat = unname(infl$hat), sigma = unname(infl$sigma), cooksd = unname(cooks.distance(fit, infl = infl)))
}
obs <- obs_of("p", TRUE)
stopifnot(isTRUE(all.equal(obs, obs_of("cbind(k, m - k)", FALSE), tolerance = 1e-10)))

write_num(do.call(rbind, coefs), "grouped_binomial_coef.csv")
write_num(obs, "grouped_binomial_obs.csv")
write_num(do.call(rbind, glances), "grouped_binomial_glance.csv")
writeLines(session_line(), file.path(REF, "grouped_binomial.session.txt"))
