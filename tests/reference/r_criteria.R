## R's logLik(), AIC() and BIC() of glm fits whose family estimates a dispersion (Gamma,
## inverse.gaussian, gaussian with a log link), with and without prior weights, and the overall
## F test of lm fits that broom's glance.lm reports (statistic, p.value, df, deviance).
## For tests/results/test_r_criteria.py.  The formulas are those streamreg selected (the test
## module says with which call); R fits the same formula.
## Run from the repository root:   Rscript tests/reference/r_criteria.R
## Writes tests/reference/data/clotting.csv, tests/reference/r_criteria.csv and
## r_criteria.session.txt.  Numbers have 17 significant digits.
source("tests/reference/common.R")

## McCullagh & Nelder (1989, section 8.4.2): clotting time of blood (seconds) against the
## concentration u (%) of plasma, two lots; the textbook Gamma example with the inverse link.
clotting <- data.frame(u = c(5, 10, 15, 20, 30, 40, 60, 80, 100),
                       lot1 = c(118, 58, 42, 35, 27, 25, 21, 19, 18),
                       lot2 = c(69, 35, 26, 21, 18, 16, 13, 12, 12))
clotting$log_u <- log(clotting$u)
write.csv(clotting, file.path(DATA_DIR, "clotting.csv"), row.names = FALSE)

## weights: R's prior weights (streamreg's var_weights=); freq: frequency weights (streamreg's
## freq_weights=), fitted in R on the data with each row repeated `freq` times (the column f is
## 0, 1, 2, 3, 0, 1, ... down the rows, so a quarter of the rows are dropped); offset: a column
## added to the linear predictor.
SE5 <- "radius_se + area_se + smoothness_se + compactness_se + concave_points_se"
case <- function(case, data, response, rhs, family, link, weights = "", freq = "", offset = "")
  list(case = case, data = data, response = response, rhs = rhs, family = family, link = link,
       weights = weights, freq = freq, offset = offset)
CASES <- list(
  case("wdbc_invgauss", "wdbc", "area_mean", "smoothness_se", "inverse.gaussian", "1/mu^2"),
  case("wdbc_gamma_log", "wdbc", "smoothness_mean", SE5, "Gamma", "log"),
  case("clotting_gamma_inverse", "clotting", "lot1", "log_u + u", "Gamma", "inverse"),
  case("wdbc_gaussian_log", "wdbc", "smoothness_mean", SE5, "gaussian", "log"),
  case("wdbc_invgauss_weights", "wdbc", "area_mean", "smoothness_se", "inverse.gaussian", "1/mu^2",
       weights = "texture_mean"),
  case("wdbc_gamma_log_weights", "wdbc", "smoothness_mean", SE5, "Gamma", "log", weights = "texture_mean"),
  case("wdbc_gaussian_log_weights", "wdbc", "smoothness_mean", SE5, "gaussian", "log", weights = "texture_mean"),
  case("wdbc_invgauss_freq", "wdbc", "area_mean", "smoothness_se", "inverse.gaussian", "1/mu^2", freq = "f"),
  case("wdbc_gamma_log_freq_weights", "wdbc", "smoothness_mean", SE5, "Gamma", "log", weights = "texture_mean",
       freq = "f"),
  case("wdbc_lm", "wdbc", "smoothness_mean", SE5, "gaussian", "identity"),
  case("wdbc_lm_weights", "wdbc", "smoothness_mean", SE5, "gaussian", "identity", weights = "texture_mean"),
  case("wdbc_lm_freq", "wdbc", "smoothness_mean", SE5, "gaussian", "identity", freq = "f"),
  case("wdbc_lm_offset", "wdbc", "smoothness_mean", SE5, "gaussian", "identity", offset = "symmetry_se"),
  case("wdbc_lm_noint", "wdbc", "smoothness_mean", paste("0 +", SE5), "gaussian", "identity"),
  case("wdbc_lm_intercept_only", "wdbc", "smoothness_mean", "1", "gaussian", "identity")
)

num <- function(x) ifelse(is.na(x), "", sprintf("%.17g", x))
write_num <- function(df, file) {
  df[] <- lapply(df, function(v) if (is.double(v)) num(v) else v)
  write.csv(df, file.path(REF, file), row.names = FALSE, na = "")
  message("wrote ", file.path(REF, file), " (", nrow(df), " rows)")
}

case_data <- function(cs) {
  d <- if (cs$data == "wdbc") load_dataset("wdbc")$data else read.csv(file.path(DATA_DIR, "clotting.csv"))
  d$f <- (seq_len(nrow(d)) - 1L) %% 4L
  if (nzchar(cs$freq)) d <- d[rep(seq_len(nrow(d)), d[[cs$freq]]), , drop = FALSE]
  d
}

fit_case <- function(cs, d) {
  form <- reformulate(cs$rhs, cs$response)
  w <- if (nzchar(cs$weights)) as.name(cs$weights) else NULL
  off <- if (nzchar(cs$offset)) as.name(cs$offset) else NULL
  if (cs$family == "gaussian" && cs$link == "identity")
    return(eval(bquote(lm(.(form), data = d, weights = .(w), offset = .(off)))))
  fam <- switch(cs$family, gaussian = gaussian(link = cs$link), Gamma = Gamma(link = cs$link),
                inverse.gaussian = inverse.gaussian(link = cs$link))
  fit <- with_glm_warnings(eval(bquote(glm(.(form), fam, d, weights = .(w), offset = .(off),
                                           control = CTL))))$value
  stopifnot(fit$converged)
  fit
}

## the family's aic written out as the brief for streamreg states it, checked against R's own
by_hand_aic <- function(fit) {
  y <- fit$y; mu <- fitted(fit); wt <- fit$prior.weights; dev <- deviance(fit)
  disp <- dev / sum(wt)
  aic <- switch(family(fit)$family,
    Gamma = -2 * sum(wt * dgamma(y, 1 / disp, scale = mu * disp, log = TRUE)) + 2,
    inverse.gaussian = sum(wt) * (log(disp * 2 * pi) + 1) + 3 * sum(log(y) * wt) + 2,
    gaussian = length(y) * (log(2 * pi * dev / length(y)) + 1) + 2 - sum(log(wt)))
  aic + 2 * fit$rank
}

rows <- list()
for (cs in CASES) {
  d <- case_data(cs)
  fit <- fit_case(cs, d)
  is_lm <- !inherits(fit, "glm")
  ll <- logLik(fit)
  s <- summary(fit)
  g <- data.frame(cs, nobs = nobs(fit), rank = fit$rank, logLik = as.numeric(ll), df_logLik = attr(ll, "df"),
                  AIC = AIC(fit), BIC = BIC(fit), deviance = deviance(fit), df_residual = df.residual(fit),
                  dispersion = NA_real_, r_squared = NA_real_, adj_r_squared = NA_real_, sigma = NA_real_,
                  statistic = NA_real_, p_value = NA_real_, df = NA_real_, dendf = NA_real_,
                  stringsAsFactors = FALSE)
  if (is_lm) {
    g$r_squared <- s$r.squared
    g$adj_r_squared <- s$adj.r.squared
    g$sigma <- s$sigma
    if (!is.null(s$fstatistic)) {  # none for a model of the intercept alone
      fs <- s$fstatistic
      g$statistic <- unname(fs["value"])
      g$p_value <- pf(fs["value"], fs["numdf"], fs["dendf"], lower.tail = FALSE)
      g$df <- unname(fs["numdf"])
      g$dendf <- unname(fs["dendf"])
    }
  } else {
    g$dispersion <- s$dispersion
    stopifnot(isTRUE(all.equal(AIC(fit), by_hand_aic(fit), tolerance = 1e-12)))
  }
  rows[[cs$case]] <- g
}

write_num(do.call(rbind, rows), "r_criteria.csv")
writeLines(session_line(), file.path(REF, "r_criteria.session.txt"))
