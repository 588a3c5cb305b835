## R's glm() with quasipoisson and quasibinomial families: coefficients, standard errors, t values,
## p-values and the dispersion, which streamreg's refit of a quasi family reports (scale = "X2",
## t tests on the residual degrees of freedom).
## Run from the repository root (after data.R):   Rscript tests/reference/quasi_refit.R
## Writes tests/reference/quasi_cases.csv and quasi_coef.csv.
source("tests/reference/common.R")

CASES <- list(
  quine = list(data = "quine", response = "Days", family = "quasipoisson", rhs = c("Eth", "Age"), weights = ""),
  epil = list(data = "epil", response = "y", family = "quasipoisson", rhs = c("trt", "lbase"), weights = ""),
  birthwt = list(data = "birthwt", response = "low", family = "quasibinomial", rhs = c("lwt", "race"), weights = ""),
  grouped = list(data = "grouped_binomial", response = "p", family = "quasibinomial", rhs = c("z", "x1"),
                 weights = "m")
)

cases <- coefs <- list()
for (name in names(CASES)) {
  spec <- CASES[[name]]
  if (spec$data == "grouped_binomial") {
    d <- read.csv(file.path(DATA_DIR, "grouped_binomial.csv"))
    d$p <- d$k / d$m  # proportions of m trials
    factors <- character(0)
  } else {
    ds <- load_dataset(spec$data)
    d <- ds$data
    factors <- ds$factors
  }
  fam <- switch(spec$family, quasipoisson = quasipoisson(), quasibinomial = quasibinomial())
  f <- reformulate(spec$rhs, spec$response)
  fit <- if (nzchar(spec$weights)) glm(f, family = fam, data = d, weights = d[[spec$weights]], control = CTL)
         else glm(f, family = fam, data = d, control = CTL)
  ## summary.glm's covariance uses glm.fit's working weights, which come from the iterate before the
  ## last: restarted at the estimates, glm converges in one step with the weights of the MLE
  fit <- if (nzchar(spec$weights)) glm(f, family = fam, data = d, weights = d[[spec$weights]], control = CTL,
                                       start = coef(fit))
         else glm(f, family = fam, data = d, control = CTL, start = coef(fit))
  s <- summary(fit)
  tab <- coef_table(fit, name, factors)
  tab$std_error <- unname(s$coefficients[, "Std. Error"])
  tab$t_value <- unname(s$coefficients[, "t value"])
  tab$p_value <- unname(s$coefficients[, "Pr(>|t|)"])
  coefs[[name]] <- tab
  cases[[name]] <- data.frame(case = name, data = spec$data, response = spec$response, family = spec$family,
                              rhs = paste(spec$rhs, collapse = " "), weights = spec$weights,
                              factors = paste(factors, collapse = " "), dispersion = s$dispersion,
                              df_residual = fit$df.residual, loglik = as.numeric(logLik(fit)),
                              stringsAsFactors = FALSE)
}
write_ref(do.call(rbind, cases), "quasi_cases.csv")
write_ref(do.call(rbind, coefs), "quasi_coef.csv")
writeLines(session_line(), file.path(REF, "quasi_refit.session.txt"))
