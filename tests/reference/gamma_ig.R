## Families that estimate their dispersion (Gamma, inverse Gaussian, Gaussian with a log link) on
## MASS's Boston: summary.glm's t tests, confint.default, add1()/drop1() statistics and step().
## Run from the repository root (after data.R):   Rscript tests/reference/gamma_ig.R
## Writes tests/reference/gamma_ig_{refit,add1,drop1,step,final}.csv (tests/models/test_gamma_ig.py).
##
## What R does, from its sources (stats:::add1.glm, drop1.glm, extractAIC.glm, step):
## * summary.glm: the dispersion is the Pearson chi-square over the residual df, and the
##   p-values are t tests on the residual df, for every family but binomial and poisson;
##   confint.default gives normal (Wald) intervals;
## * add1/drop1 (test = "LRT"): the deviance change over the Pearson dispersion of the model they
##   are called on (the smaller for add1, the larger for drop1; "scaled dev."), for gaussian
##   n log(D_small / D_large); test = "Rao": the score over that dispersion ("scaled Rao sc.");
## * step() ranks the candidates by add1/drop1's AIC column, D / dispersion + k df shifted to the
##   current model's extractAIC, so the ranking uses the dispersion of the model it starts the
##   step from, while the AIC it reports for each model (extractAIC.glm: fit$aic + (k - 2) edf)
##   plugs in each model's own deviance / n.
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

d <- read.csv(file.path(DATA_DIR, "boston.csv"))
CANDIDATES <- setdiff(names(d), "medv")
FAMILIES <- list(gamma_log = Gamma(link = "log"), invgauss_log = inverse.gaussian(link = "log"),
                 gaussian_log = gaussian(link = "log"))
n <- nrow(d)

## glm() stops when the deviance changes by less than epsilon (relatively); with a log link, which
## is not these families' canonical link, IRLS converges linearly and the deviance is flat near
## its minimum, so even epsilon = 1e-13 leaves the coefficients up to 1.6e-7 (relatively) from the
## maximum likelihood, and the Pearson dispersion, which is not flat there, as far.  IRLS steps
## are therefore continued until the coefficients change by less than 1e-13, and glm() restarted
## there converges in one step with everything at the MLE.
at_mle <- function(fit) {
  x <- model.matrix(fit)
  fam <- fit$family
  beta <- coef(fit)
  for (i in 1:500) {
    eta <- drop(x %*% beta)
    mu <- fam$linkinv(eta)
    dmu <- fam$mu.eta(eta)
    new <- lm.wfit(x, eta + (fit$y - mu) / dmu, fit$prior.weights * dmu^2 / fam$variance(mu))$coefficients
    settled <- max(abs(new - beta) / pmax(abs(beta), 1e-10)) < 1e-13
    beta <- new
    if (settled) break
  }
  stopifnot(settled)
  beta
}

fit_of <- function(family, terms) {
  f <- reformulate(rhs_of(terms), "medv")
  fit <- glm(f, family = FAMILIES[[family]], data = d, control = CTL)
  fit <- glm(f, family = FAMILIES[[family]], data = d, control = CTL, start = at_mle(fit))
  stopifnot(fit$converged, fit$iter == 1L)
  fit
}

## ------------------------------------------------------------------ summary.glm and confint.default
REFITS <- list(
  gamma_log_full = list(family = "gamma_log", terms = CANDIDATES),
  invgauss_log = list(family = "invgauss_log", terms = c("lstat", "ptratio", "crim", "chas", "nox", "dis")),
  gaussian_log = list(family = "gaussian_log", terms = c("lstat", "rm", "ptratio", "dis"))
)
refits <- list()
for (name in names(REFITS)) {
  spec <- REFITS[[name]]
  fit <- fit_of(spec$family, spec$terms)
  s <- summary(fit)
  ci <- confint.default(fit, level = 0.95)
  refits[[name]] <- data.frame(
    case = name, family = spec$family, terms = paste(spec$terms, collapse = " "), name = names(coef(fit)),
    estimate = unname(coef(fit)), std_error = unname(s$coefficients[, "Std. Error"]),
    t_value = unname(s$coefficients[, "t value"]), p_value = unname(s$coefficients[, "Pr(>|t|)"]),
    p_normal = unname(2 * pnorm(-abs(s$coefficients[, "t value"]))), conf_low = unname(ci[, 1]),
    conf_high = unname(ci[, 2]), dispersion = s$dispersion, df_residual = fit$df.residual,
    loglik = as.numeric(logLik(fit)), aic = AIC(fit), stringsAsFactors = FALSE)
}
write_ref(do.call(rbind, refits), "gamma_ig_refit.csv")

## ------------------------------------------------------------------ add1 and drop1
add1s <- list()
for (family in names(FAMILIES)) {
  for (base in list(character(0), "lstat")) {
    case <- paste0(family, "_", if (length(base)) base else "null")
    fit0 <- fit_of(family, base)
    cands <- setdiff(CANDIDATES, base)
    lrt <- add1(fit0, cands, test = "LRT")
    rao <- add1(fit0, cands, test = "Rao")
    keep <- rownames(lrt) != "<none>"
    at <- rao_at_mle(fit0, d, "medv", base, cands, FAMILIES[[family]])
    add1s[[case]] <- data.frame(
      case = case, family = family, base = paste(base, collapse = " "), term = rownames(lrt)[keep],
      df = lrt$Df[keep], lrt_column = names(lrt)[4], lrt = lrt[[4]][keep], lrt_pvalue = lrt[["Pr(>Chi)"]][keep],
      aic_change = lrt$AIC[keep] - lrt$AIC[!keep], rao = rao[[4]][keep], rao_at_mle = unname(at$score[cands]) /
        at$dispersion, dispersion = summary(fit0)$dispersion, stringsAsFactors = FALSE)
  }
}
write_ref(do.call(rbind, add1s), "gamma_ig_add1.csv")

drop1s <- list()
for (name in c("gamma_log_full", "invgauss_log")) {
  spec <- REFITS[[name]]
  fit <- fit_of(spec$family, spec$terms)
  lrt <- drop1(fit, test = "LRT")
  keep <- rownames(lrt) != "<none>"
  drop1s[[name]] <- data.frame(case = name, family = spec$family, term = rownames(lrt)[keep], df = lrt$Df[keep],
                               lrt = lrt[[4]][keep], aic_change = lrt$AIC[keep] - lrt$AIC[!keep],
                               stringsAsFactors = FALSE)
}
write_ref(do.call(rbind, drop1s), "gamma_ig_drop1.csv")

## ------------------------------------------------------------------ step()
STEPS <- list(
  gamma_log_forward_aic = list(family = "gamma_log", direction = "forward", penalty = "aic"),
  gamma_log_both_aic = list(family = "gamma_log", direction = "both", penalty = "aic"),
  gamma_log_forward_bic = list(family = "gamma_log", direction = "forward", penalty = "bic"),
  invgauss_log_forward_aic = list(family = "invgauss_log", direction = "forward", penalty = "aic"),
  gaussian_log_forward_aic = list(family = "gaussian_log", direction = "forward", penalty = "aic")
)
steps <- finals <- list()
for (name in names(STEPS)) {
  spec <- STEPS[[name]]
  k <- if (spec$penalty == "aic") 2 else log(n)
  fit0 <- glm(medv ~ 1, family = FAMILIES[[spec$family]], data = d, control = CTL)  # step() updates its call
  st <- step(fit0, scope = list(lower = ~1, upper = reformulate(CANDIDATES)), direction = spec$direction, k = k,
             trace = 0)
  a <- st$anova
  text <- trimws(as.character(a$Step))
  action <- ifelse(substr(text, 1, 1) == "+", "add", "drop")
  term <- trimws(substring(text, 2))
  ## the ranking step() used for each move: add1/drop1's AIC column at the model before it
  in_model <- character(0)
  rank_change <- lrt <- rep(NA_real_, nrow(a))
  for (i in seq_len(nrow(a))[-1]) {
    before <- fit_of(spec$family, in_model)
    if (action[i] == "add") {
      aod <- add1(before, setdiff(CANDIDATES, in_model), k = k, test = "LRT")
      in_model <- c(in_model, term[i])
    } else {
      aod <- drop1(before, in_model, k = k, test = "LRT")
      in_model <- setdiff(in_model, term[i])
    }
    rank_change[i] <- aod[term[i], "AIC"] - aod["<none>", "AIC"]
    lrt[i] <- aod[term[i], 4]
  }
  final_terms <- attr(terms(st), "term.labels")
  steps[[name]] <- data.frame(case = name, family = spec$family, direction = spec$direction, penalty = spec$penalty,
                              step = seq_len(nrow(a)) - 1L, action = ifelse(text == "", "start", action),
                              term = ifelse(text == "", "", term), df = abs(a$Df), criterion = a$AIC,
                              rank_change = rank_change, lrt = lrt, stringsAsFactors = FALSE)
  ## step() keeps a move whose refit does not lower extractAIC, then stops (its anova omits it)
  stopifnot(setequal(final_terms, in_model))
  finals[[name]] <- data.frame(case = name, terms = paste(final_terms, collapse = " "),
                               loglik = as.numeric(logLik(st)), aic = AIC(st), bic = BIC(st),
                               criterion = extractAIC(st, k = k)[2], stringsAsFactors = FALSE)
}
write_ref(do.call(rbind, steps), "gamma_ig_step.csv")
write_ref(do.call(rbind, finals), "gamma_ig_final.csv")
writeLines(session_line(), file.path(REF, "gamma_ig.session.txt"))
