## broom's glance() and augment() numbers for fits with prior weights and offsets, computed with
## base R: lm(weights =, offset =) and glm(weights =, offset = log(exposure)).  For
## tests/results/test_broom_reference.py (augment with weights, .fitted including the offset,
## glance of a least-squares fit with an offset, predictions on new rows reading the offset).
## Run from the repository root:   Rscript tests/reference/broom_weighted.R
## Writes tests/reference/broom_weighted_cases.csv, broom_weighted_glance.csv,
## broom_weighted_obs.csv, broom_weighted_newdata.csv and broom_weighted.session.txt.
source("tests/reference/common.R")

## weights: R's prior weights (streamreg's var_weights=); offset: a column added to the linear
## predictor (offset=); exposure: a column whose log is (exposure=).  newdata: rows 1..8 with
## `shift` times 1.1 and the offset / exposure column times 1.05, so the new offset matters.
CASES <- list(
  list(case = "mtcars_wls", data = "mtcars_full", response = "mpg", rhs = "wt + hp", family = "gaussian",
       link = "identity", weights = "drat", offset = "", exposure = "", shift = "wt"),
  list(case = "mtcars_offset", data = "mtcars_full", response = "mpg", rhs = "wt + hp", family = "gaussian",
       link = "identity", weights = "", offset = "qsec", exposure = "", shift = "wt"),
  list(case = "mtcars_wls_offset", data = "mtcars_full", response = "mpg", rhs = "wt + hp", family = "gaussian",
       link = "identity", weights = "drat", offset = "qsec", exposure = "", shift = "hp"),
  list(case = "mtcars_gamma_weighted", data = "mtcars_full", response = "mpg", rhs = "wt + hp", family = "Gamma",
       link = "log", weights = "drat", offset = "", exposure = "qsec", shift = "wt"),
  list(case = "epil_poisson_weighted", data = "epil", response = "y", rhs = "lbase + age", family = "poisson",
       link = "log", weights = "age", offset = "", exposure = "base", shift = "lbase")
)

num <- function(x) ifelse(is.na(x), "", sprintf("%.17g", x))
write_num <- function(df, file) {
  df[] <- lapply(df, function(v) if (is.double(v)) num(v) else v)
  write.csv(df, file.path(REF, file), row.names = FALSE, na = "")
  message("wrote ", file.path(REF, file), " (", nrow(df), " rows)")
}

## the model with its weights and offset given as expressions of the data, so that predict()
## evaluates the offset on new data as well
fit_case <- function(cs, d) {
  form <- reformulate(cs$rhs, cs$response)
  off <- if (nzchar(cs$offset)) as.name(cs$offset)
         else if (nzchar(cs$exposure)) call("log", as.name(cs$exposure)) else NULL
  w <- if (nzchar(cs$weights)) as.name(cs$weights) else NULL
  if (cs$family == "gaussian") return(eval(bquote(lm(.(form), data = d, weights = .(w), offset = .(off)))))
  fam <- switch(cs$family, Gamma = Gamma(link = cs$link), poisson = poisson(link = cs$link))
  fit <- with_glm_warnings(eval(bquote(glm(.(form), fam, d, weights = .(w), offset = .(off), control = CTL))))$value
  ## restarted at its own MLE (see broom_refit.R): influence measures at the MLE
  at_mle <- eval(bquote(glm(.(form), fam, d, weights = .(w), offset = .(off), start = .(coef(fit)), control = CTL)))
  stopifnot(at_mle$converged, at_mle$iter == 1L)
  at_mle
}

cases <- coefs <- glances <- obs <- news <- list()
for (cs in CASES) {
  d <- read.csv(file.path(DATA_DIR, paste0(cs$data, ".csv")), stringsAsFactors = FALSE)
  fit <- fit_case(cs, d)
  is_lm <- !inherits(fit, "glm")
  n <- nrow(d)
  sm <- coef(summary(fit))
  coefs[[cs$case]] <- data.frame(case = cs$case, name = rownames(sm), estimate = unname(sm[, 1]),
                                 std_error = unname(sm[, 2]), stringsAsFactors = FALSE)
  ll <- logLik(fit)
  s <- summary(fit)
  g <- data.frame(case = cs$case, nobs = nobs(fit), logLik = as.numeric(ll), df_logLik = attr(ll, "df"),
                  AIC = AIC(fit), BIC = BIC(fit), deviance = deviance(fit), df_residual = df.residual(fit),
                  null_deviance = NA_real_, df_null = NA_real_, r_squared = NA_real_, adj_r_squared = NA_real_,
                  sigma = NA_real_, stringsAsFactors = FALSE)
  if (is_lm) {
    g$r_squared <- s$r.squared
    g$adj_r_squared <- s$adj.r.squared
    g$sigma <- s$sigma
  } else {
    g$null_deviance <- fit$null.deviance
    g$df_null <- fit$df.null
  }
  glances[[cs$case]] <- g
  ## augment on the training rows: .fitted includes the offset (predict()), residuals with weights
  infl <- influence(fit, do.coef = FALSE)
  link <- predict(fit, se.fit = TRUE)
  resp <- if (is_lm) link else predict(fit, type = "response", se.fit = TRUE)
  obs[[cs$case]] <- data.frame(
    case = cs$case, row = seq_len(n), fitted_link = unname(link$fit), se_fit_link = unname(link$se.fit),
    fitted_response = unname(resp$fit), se_fit_response = unname(resp$se.fit),
    resid_deviance = unname(residuals(fit, type = if (is_lm) "response" else "deviance")),
    resid_pearson = unname(residuals(fit, type = if (is_lm) "response" else "pearson")),
    std_resid_deviance = unname(if (is_lm) rstandard(fit, infl = infl) else rstandard(fit, infl = infl, type = "deviance")),
    std_resid_pearson = unname(if (is_lm) rstandard(fit, infl = infl) else rstandard(fit, infl = infl, type = "pearson")),
    hat = unname(infl$hat), sigma = unname(infl$sigma), cooksd = unname(cooks.distance(fit, infl = infl)),
    stringsAsFactors = FALSE)
  nd <- d[1:8, , drop = FALSE]
  nd[[cs$shift]] <- nd[[cs$shift]] * 1.1
  moved <- if (nzchar(cs$offset)) cs$offset else cs$exposure
  if (nzchar(moved)) nd[[moved]] <- nd[[moved]] * 1.05
  plink <- predict(fit, newdata = nd, se.fit = TRUE)
  presp <- if (is_lm) plink else predict(fit, newdata = nd, type = "response", se.fit = TRUE)
  news[[cs$case]] <- data.frame(case = cs$case, row = 1:8, fitted_link = unname(plink$fit),
                                se_fit_link = unname(plink$se.fit), fitted_response = unname(presp$fit),
                                se_fit_response = unname(presp$se.fit), stringsAsFactors = FALSE)
  cases[[cs$case]] <- data.frame(case = cs$case, data = cs$data, response = cs$response, rhs = cs$rhs,
                                 family = cs$family, link = cs$link, weights = cs$weights, offset = cs$offset,
                                 exposure = cs$exposure, shift = cs$shift, n = n, stringsAsFactors = FALSE)
}

write_num(do.call(rbind, cases), "broom_weighted_cases.csv")
write_num(do.call(rbind, coefs), "broom_weighted_coef.csv")
write_num(do.call(rbind, glances), "broom_weighted_glance.csv")
write_num(do.call(rbind, obs), "broom_weighted_obs.csv")
write_num(do.call(rbind, news), "broom_weighted_newdata.csv")
writeLines(session_line(), file.path(REF, "broom_weighted.session.txt"))
