## What broom's tidy(), glance() and augment() report for a fitted lm / glm, computed with base R
## (no broom needed): coefficients with Wald intervals, the one-row model summary, and the
## per-observation fitted values, residuals, hat values, leave-one-out sigma and Cook's distance,
## plus predictions with standard errors on new rows.  For tests/results/test_broom_reference.py
## (StreamRegResults.tidy / glance / augment / aic / bic / get_prediction / model_frame).
## Run from the repository root:   Rscript tests/reference/broom_refit.R
## Writes tests/reference/broom_cases.csv, broom_coef.csv, broom_glance.csv, broom_obs.csv,
## broom_newdata.csv and broom_refit.session.txt.  Numbers have 17 significant digits.
source("tests/reference/common.R")

## rhs: the model (R spelling; `factors` are made factors with sorted levels, streamreg spells
## them C(name)); candidate: a stream the Python test never tests (method = "stepwise-aic",
## max_steps = 0), so that streamreg's refit is exactly this model.  newdata: rows 1..8 of the
## data with the column `shift` multiplied by 1.1 ("" = unchanged).
CASES <- list(
  list(case = "mtcars_lm", data = "mtcars_full", response = "mpg", rhs = "wt + hp + cyl", factors = "cyl",
       family = "gaussian", link = "identity", candidate = "qsec", shift = "wt"),
  list(case = "mtcars_lm_noint", data = "mtcars_full", response = "mpg", rhs = "0 + wt + hp",
       factors = character(0), family = "gaussian", link = "identity", candidate = "qsec", shift = "hp"),
  list(case = "mtcars_gaussian_log", data = "mtcars_full", response = "mpg", rhs = "wt + hp",
       factors = character(0), family = "gaussian", link = "log", candidate = "qsec", shift = "wt"),
  list(case = "mtcars_gamma_log", data = "mtcars_full", response = "mpg", rhs = "wt + hp + am",
       factors = character(0), family = "Gamma", link = "log", candidate = "qsec", shift = "hp"),
  list(case = "birthwt_logit", data = "birthwt", response = "low", rhs = "lwt + race + smoke + ptl + ht",
       factors = "race", family = "binomial", link = "logit", candidate = "age", shift = "lwt"),
  list(case = "birthwt_logit_noint", data = "birthwt", response = "low", rhs = "0 + lwt + smoke",
       factors = character(0), family = "binomial", link = "logit", candidate = "age", shift = "lwt"),
  list(case = "quine_poisson", data = "quine", response = "Days", rhs = "Eth + Age + Lrn",
       factors = c("Eth", "Age", "Lrn"), family = "poisson", link = "log", candidate = "C(Sex)", shift = "")
)

num <- function(x) ifelse(is.na(x), "", sprintf("%.17g", x))
write_num <- function(df, file) {
  df[] <- lapply(df, function(v) if (is.double(v)) num(v) else v)
  write.csv(df, file.path(REF, file), row.names = FALSE, na = "")
  message("wrote ", file.path(REF, file), " (", nrow(df), " rows)")
}

read_case_data <- function(cs) {
  d <- read.csv(file.path(DATA_DIR, paste0(cs$data, ".csv")), stringsAsFactors = FALSE)
  for (f in cs$factors) d[[f]] <- factor(d[[f]], levels = sort(unique(d[[f]])))
  d
}

## glm restarted at its own MLE converges in one step, so every quantity R derives from the
## IRLS weights (hat values, standard errors, Cook's distance) is evaluated at the MLE instead of
## at the iteration before the last (see README.md, add1_glm.R)
fit_case <- function(cs, d) {
  form <- reformulate(cs$rhs, cs$response)
  if (cs$family == "gaussian" && cs$link == "identity") return(lm(form, d))
  fam <- switch(cs$family, gaussian = gaussian(link = cs$link), Gamma = Gamma(link = cs$link),
                binomial = binomial(link = cs$link), poisson = poisson(link = cs$link))
  fit <- with_glm_warnings(glm(form, fam, d, control = CTL))$value
  at_mle <- glm(form, fam, d, start = coef(fit), control = CTL)
  stopifnot(at_mle$converged, at_mle$iter == 1L)
  at_mle
}

cases <- coefs <- glances <- obs <- news <- list()
for (cs in CASES) {
  d <- read_case_data(cs)
  fit <- fit_case(cs, d)
  is_lm <- !inherits(fit, "glm")
  n <- nrow(d)
  ## tidy: estimates, standard errors, statistics, p-values and Wald intervals at 95% and 90%
  ## (confint() of an lm is the t interval; confint.default() of a glm the Wald z interval --
  ## broom's tidy.glm calls confint(), which profiles the likelihood instead)
  ct <- coef_table(fit, cs$case, cs$factors)
  sm <- coef(summary(fit))
  ci95 <- if (is_lm) confint(fit, level = 0.95) else confint.default(fit, level = 0.95)
  ci90 <- if (is_lm) confint(fit, level = 0.90) else confint.default(fit, level = 0.90)
  ct$std_error <- unname(sm[ct$name, 2])
  ct$statistic <- unname(sm[ct$name, 3])
  ct$p_value <- unname(sm[ct$name, 4])
  ct$conf_low_95 <- unname(ci95[ct$name, 1])
  ct$conf_high_95 <- unname(ci95[ct$name, 2])
  ct$conf_low_90 <- unname(ci90[ct$name, 1])
  ct$conf_high_90 <- unname(ci90[ct$name, 2])
  coefs[[cs$case]] <- ct
  ## glance: broom's glance.lm / glance.glm columns
  ll <- logLik(fit)
  s <- summary(fit)
  g <- data.frame(case = cs$case, nobs = nobs(fit), logLik = as.numeric(ll), df_logLik = attr(ll, "df"),
                  AIC = AIC(fit), BIC = BIC(fit), deviance = deviance(fit), df_residual = df.residual(fit),
                  null_deviance = NA_real_, df_null = NA_real_, r_squared = NA_real_, adj_r_squared = NA_real_,
                  sigma = NA_real_, dispersion = NA_real_, stringsAsFactors = FALSE)
  if (is_lm) {
    g$r_squared <- s$r.squared
    g$adj_r_squared <- s$adj.r.squared
    g$sigma <- s$sigma
    g$dispersion <- s$sigma^2
  } else {
    g$null_deviance <- fit$null.deviance
    g$df_null <- fit$df.null
    g$dispersion <- s$dispersion
  }
  glances[[cs$case]] <- g
  ## augment (training rows): broom's augment.lm / augment.glm columns, both residual types
  infl <- influence(fit, do.coef = FALSE)
  link <- predict(fit, se.fit = TRUE)
  resp <- if (is_lm) link else predict(fit, type = "response", se.fit = TRUE)
  obs[[cs$case]] <- data.frame(
    case = cs$case, row = seq_len(n), fitted_link = unname(link$fit), se_fit_link = unname(link$se.fit),
    fitted_response = unname(resp$fit), se_fit_response = unname(resp$se.fit),
    resid_deviance = unname(residuals(fit, type = "deviance")),
    resid_pearson = unname(residuals(fit, type = "pearson")),
    std_resid_deviance = unname(if (is_lm) rstandard(fit, infl = infl) else rstandard(fit, infl = infl, type = "deviance")),
    std_resid_pearson = unname(if (is_lm) rstandard(fit, infl = infl) else rstandard(fit, infl = infl, type = "pearson")),
    hat = unname(infl$hat), sigma = unname(infl$sigma), cooksd = unname(cooks.distance(fit, infl = infl)),
    stringsAsFactors = FALSE)
  ## predictions on new rows: rows 1..8, `shift` times 1.1
  nd <- d[1:8, , drop = FALSE]
  if (nzchar(cs$shift)) nd[[cs$shift]] <- nd[[cs$shift]] * 1.1
  plink <- predict(fit, newdata = nd, se.fit = TRUE)
  presp <- if (is_lm) plink else predict(fit, newdata = nd, type = "response", se.fit = TRUE)
  nw <- data.frame(case = cs$case, row = 1:8, fitted_link = unname(plink$fit), se_fit_link = unname(plink$se.fit),
                   fitted_response = unname(presp$fit), se_fit_response = unname(presp$se.fit),
                   conf_low = NA_real_, conf_high = NA_real_, pred_low = NA_real_, pred_high = NA_real_,
                   stringsAsFactors = FALSE)
  if (is_lm) {
    ci <- predict(fit, newdata = nd, interval = "confidence", level = 0.95)
    pi <- predict(fit, newdata = nd, interval = "prediction", level = 0.95)
    nw$conf_low <- unname(ci[, "lwr"])
    nw$conf_high <- unname(ci[, "upr"])
    nw$pred_low <- unname(pi[, "lwr"])
    nw$pred_high <- unname(pi[, "upr"])
  }
  news[[cs$case]] <- nw
  cases[[cs$case]] <- data.frame(case = cs$case, data = cs$data, response = cs$response, rhs = cs$rhs,
                                 factors = paste(cs$factors, collapse = " "), family = cs$family, link = cs$link,
                                 candidate = cs$candidate, shift = cs$shift, n = n, rank = fit$rank,
                                 stringsAsFactors = FALSE)
}

write_num(do.call(rbind, cases), "broom_cases.csv")
write_num(do.call(rbind, coefs), "broom_coef.csv")
write_num(do.call(rbind, glances), "broom_glance.csv")
write_num(do.call(rbind, obs), "broom_obs.csv")
write_num(do.call(rbind, news), "broom_newdata.csv")
writeLines(session_line(), file.path(REF, "broom_refit.session.txt"))
