## Response expressions, R's side: lm(log(medv) ~ ...) and glm(I(medv > 25) ~ ..., binomial) on
## MASS::Boston (data/boston.csv, written by data.R), and the two-column binomial response
## glm(cbind(k, m - k) ~ ..., binomial) on the grouped data of grouped_binomial.R.
## For tests/formula/test_response_expressions.py.  Run from the repository root:
##     Rscript tests/reference/response_expressions.R
## Writes tests/reference/response_coef.csv, response_glance.csv, response_newdata.csv and
## response_expressions.session.txt.  Numbers have 17 significant digits.
source("tests/reference/common.R")

boston <- read.csv(file.path(DATA_DIR, "boston.csv"))
grouped <- read.csv(file.path(DATA_DIR, "grouped_binomial.csv"))

## The models streamreg selects (the test checks it) with method = "alpha-investing" from
## stream(crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, black, lstat) on Boston,
## and from z + stream(x*) with test = "score" on the grouped data.
CASES <- list(
  log = list(data = "boston", lhs = "log(medv)", family = "gaussian",
             rhs = "crim + zn + indus + chas + nox + rm + age + dis + tax + ptratio + black + lstat"),
  gt25 = list(data = "boston", lhs = "I(medv > 25)", family = "binomial",
              rhs = "crim + zn + indus + chas + nox + rm + dis + ptratio + lstat"),
  cbind = list(data = "grouped", lhs = "cbind(k, m - k)", family = "binomial", rhs = "z + x1 + x4")
)

## New rows without the response: the first 12 rows of the data with every numeric
## candidate moved by a tenth of its standard deviation (the test builds the same frame).
new_rows <- function(d, drop) {
  nd <- d[1:12, setdiff(names(d), drop)]
  for (v in names(nd)) nd[[v]] <- nd[[v]] + sd(d[[v]]) / 10
  nd
}

num <- function(x) ifelse(is.na(x), "", sprintf("%.17g", x))
write_num <- function(df, file) {
  df[] <- lapply(df, function(v) if (is.double(v)) num(v) else v)
  write_ref(df, file)
}

## glm restarted at its own MLE converges in one step: the standard errors come from the IRLS
## weights at the MLE (as in grouped_binomial.R)
fit_case <- function(case) {
  d <- if (case$data == "boston") boston else grouped
  f <- as.formula(paste(case$lhs, "~", case$rhs))
  if (case$family == "gaussian") return(lm(f, d))
  fit <- with_glm_warnings(glm(f, binomial, d, control = CTL))$value
  fit <- glm(f, binomial, d, start = coef(fit), control = CTL)
  stopifnot(fit$converged, fit$iter == 1L)
  fit
}

coefs <- glances <- newdata <- list()
for (name in names(CASES)) {
  case <- CASES[[name]]
  fit <- fit_case(case)
  cf <- coef(summary(fit))
  coefs[[name]] <- data.frame(case = name, name = rownames(cf), estimate = unname(cf[, 1]),
                              std_error = unname(cf[, 2]), statistic = unname(cf[, 3]),
                              p_value = unname(cf[, 4]), stringsAsFactors = FALSE)
  ll <- logLik(fit)
  glances[[name]] <- data.frame(case = name, lhs = case$lhs, rhs = case$rhs, logLik = as.numeric(ll),
                                AIC = AIC(fit), BIC = BIC(fit), deviance = deviance(fit),
                                df_residual = df.residual(fit), nobs = nobs(fit), stringsAsFactors = FALSE)
  d <- if (case$data == "boston") boston else grouped
  nd <- new_rows(d, if (case$data == "boston") "medv" else c("k", "m"))
  link <- predict(fit, nd, se.fit = TRUE)
  newdata[[name]] <- data.frame(case = name, row = seq_len(nrow(nd)), fit = unname(link$fit),
                                se_fit = unname(link$se.fit),
                                response = if (case$family == "gaussian") unname(link$fit)
                                           else unname(predict(fit, nd, type = "response")))
}

write_num(do.call(rbind, coefs), "response_coef.csv")
write_num(do.call(rbind, glances), "response_glance.csv")
write_num(do.call(rbind, newdata), "response_newdata.csv")
writeLines(session_line(), file.path(REF, "response_expressions.session.txt"))
