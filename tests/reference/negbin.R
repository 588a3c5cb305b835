## MASS::glm.nb (the negative binomial with theta estimated) and add1() on glm.nb fits: what
## streamreg's family = "negbin" reports (tests/models/test_negbin.py).
## Run from the repository root (after data.R):   Rscript tests/reference/negbin.R
## Writes tests/reference/data/negbin_synthetic.csv, negbin_cases.csv, negbin_coef.csv,
## negbin_add1.csv and negbin_step.csv.
##
## glm.nb's theta comes from theta.ml(), which stops its Newton steps once one is below
## .Machine$double.eps^0.25 (1.2e-4) and reports SE.theta from the information at the iterate
## before the last step; glm.nb also re-estimates theta at the means of the round before.  Its
## numbers (columns *_glmnb) therefore carry that convergence error (SE.theta up to ~1e-5
## relative).  The *_at_mle columns continue from glm.nb's fit: glm() at fixed theta and
## theta.ml(eps = 1e-13) alternated until theta changes by less than 1e-14 relative, then
## summary() of the glm at that theta restarted from its own estimates (weights at the MLE).
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

## a synthetic data set with an exposure and prior weights: mean exposure * exp(eta), theta = 3
set.seed(20261127)
n <- 300
syn <- data.frame(x1 = round(rnorm(n), 4), x2 = round(runif(n), 4), z = round(rnorm(n), 4),
                  g = sample(c("a", "b", "c"), n, replace = TRUE), exposure = round(runif(n, 0.5, 2), 3),
                  w = sample(1:3, n, replace = TRUE), stringsAsFactors = FALSE)
eta <- 0.5 + 0.4 * syn$x1 - 0.6 * syn$x2 + c(a = 0, b = 0.3, c = -0.4)[syn$g]
syn$y <- rnegbin(n, mu = syn$exposure * exp(eta), theta = 3)
write.csv(syn, file.path(DATA_DIR, "negbin_synthetic.csv"), row.names = FALSE)

read_case <- function(name) {
  if (name == "synthetic") {
    d <- read.csv(file.path(DATA_DIR, "negbin_synthetic.csv"), stringsAsFactors = FALSE)
    d$g <- factor(d$g)
    return(list(data = d, factors = "g", response = "y"))
  }
  ds <- load_dataset(name)
  ds$data$w <- 1
  ds$data$exposure <- 1
  list(data = ds$data, factors = ds$factors, response = ds$response)
}

CASES <- list(
  quine = list(data = "quine", rhs = c("Eth", "Sex", "Age", "Lrn")),
  epil = list(data = "epil", rhs = c("trt", "lbase", "lage", "period")),
  warpbreaks = list(data = "warpbreaks", rhs = c("wool", "tension")),
  synthetic = list(data = "synthetic", rhs = c("x1", "x2", "g"))
)

formula_of <- function(response, rhs) {
  reformulate(c(if (length(rhs)) rhs else "1", "offset(log(exposure))"), response)
}

## glm.nb, then its maximum-likelihood polish (see the header)
nb_fit <- function(f, d) {
  raw <- eval(bquote(glm.nb(.(f), data = d, weights = w, control = CTL)))
  th <- raw$theta
  b <- coef(raw)
  for (i in 1:100) {
    g <- eval(bquote(glm(.(f), family = negative.binomial(.(th)), data = d, weights = w, start = b,
                         control = CTL)))
    b <- coef(g)
    t1 <- theta.ml(g$y, fitted(g), sum(d$w), d$w, limit = 100, eps = 1e-13)
    settled <- abs(t1 - th) <= 1e-14 * th
    th <- as.vector(t1)
    se <- attr(t1, "SE")
    if (settled) break
  }
  stopifnot(settled)
  g <- eval(bquote(glm(.(f), family = negative.binomial(.(th)), data = d, weights = w, start = coef(g),
                       control = CTL)))
  stopifnot(g$converged, g$iter == 1L)
  mu <- fitted(g)
  y <- g$y
  twologlik <- 2 * sum(d$w * (lgamma(th + y) - lgamma(th) - lgamma(y + 1) + th * log(th) + y * log(mu + (y == 0))
                              - (th + y) * log(th + mu)))
  list(raw = raw, fit = g, theta = th, se = se, twologlik = twologlik)
}

cases <- coefs <- list()
for (name in names(CASES)) {
  spec <- CASES[[name]]
  rd <- read_case(spec$data)
  d <- rd$data
  nb <- nb_fit(formula_of(rd$response, spec$rhs), d)
  s <- summary(nb$fit, dispersion = 1)  # summary.negbin's: dispersion 1, z tests
  raw <- nb$raw
  n_obs <- nrow(d)
  tab <- coef_table(nb$fit, name, rd$factors)
  tab$estimate_glmnb <- unname(coef(raw))
  tab$std_error <- unname(s$coefficients[, "Std. Error"])
  tab$z_value <- unname(s$coefficients[, "z value"])
  tab$p_value <- unname(s$coefficients[, "Pr(>|z|)"])
  coefs[[name]] <- tab
  rank <- nb$fit$rank
  cases[[name]] <- data.frame(
    case = name, data = spec$data, response = rd$response, rhs = paste(spec$rhs, collapse = " "),
    factors = paste(rd$factors, collapse = " "), weighted = name == "synthetic",
    theta_glmnb = raw$theta, se_theta_glmnb = raw$SE.theta, twologlik_glmnb = raw$twologlik,
    aic_glmnb = AIC(raw), bic_glmnb = BIC(raw), deviance_glmnb = deviance(raw),
    theta_at_mle = nb$theta, se_theta_at_mle = nb$se, twologlik_at_mle = nb$twologlik,
    loglik_at_mle = nb$twologlik / 2, aic_at_mle = -nb$twologlik + 2 * (rank + 1),
    bic_at_mle = -nb$twologlik + log(n_obs) * (rank + 1), deviance_at_mle = deviance(nb$fit),
    null_deviance = raw$null.deviance, df_residual = nb$fit$df.residual, nobs = n_obs,
    logLik_df = attr(logLik(raw), "df"), stringsAsFactors = FALSE)
}
write_ref(do.call(rbind, cases), "negbin_cases.csv")
write_ref(do.call(rbind, coefs), "negbin_coef.csv")

## add1() on a glm.nb fit: add1.glm refits at the fit's fixed theta (its family is
## negative.binomial(theta)) and takes the dispersion from summary.negbin, which is 1: the "Rao
## score" and "LRT" columns (not "scaled").  The at-MLE Rao column is add1's formula with the
## working weights and residuals of the polished fit (glm.fit restarted at the MLE), except
## that the working-residual regression has no offset: add1.glm passes the model's offset to it
## (glm.fit(X, r, w, offset = offset)), whose null deviance ignores the offset, so with an offset
## its Rao column is not the score statistic (0 for every candidate of synthetic_x1, whose model
## has log(exposure) as offset); drop1.glm leaves the offset out, as here.
ADD1_CASES <- list(
  quine_null = list(data = "quine", base = character(0), candidates = c("Eth", "Sex", "Age", "Lrn")),
  quine_Eth_Age = list(data = "quine", base = c("Eth", "Age"), candidates = c("Sex", "Lrn")),
  epil_trt_lbase = list(data = "epil", base = c("trt", "lbase"), candidates = c("base", "age", "lage", "period")),
  synthetic_x1 = list(data = "synthetic", base = "x1", candidates = c("x2", "g", "z"))
)

rao_nb_at_mle <- function(fit0, d, response, base, candidates) {
  full <- reformulate(c("1", base, candidates, "offset(log(exposure))"), response)
  mf <- model.frame(full, d)
  x <- model.matrix(full, mf)
  asgn <- attr(x, "assign")
  labels <- attr(terms(full), "term.labels")
  ousex <- asgn == 0L | labels[pmax(asgn, 1L)] %in% base
  off <- log(d$exposure)
  z <- glm.fit(x[, ousex, drop = FALSE], fit0$y, weights = d$w, start = coef(fit0), offset = off,
               family = fit0$family, control = CTL)
  stopifnot(z$converged, z$iter == 1L)
  sapply(candidates, function(tt) {
    X <- x[, ousex | asgn == match(tt, labels), drop = FALSE]
    zz <- glm.fit(X, z$residuals, z$weights)
    max(0, zz$null.deviance - zz$deviance)
  })
}

rows <- list()
for (name in names(ADD1_CASES)) {
  spec <- ADD1_CASES[[name]]
  rd <- read_case(spec$data)
  d <- rd$data
  assign(".refdata", d, envir = globalenv())
  nb <- nb_fit(formula_of(rd$response, spec$base), d)
  raw <- nb$raw
  rao <- add1(raw, spec$candidates, test = "Rao")
  lrt <- add1(raw, spec$candidates, test = "LRT")
  keep <- rownames(rao) != "<none>"
  cands <- trimws(rownames(rao)[keep])
  at <- rao_nb_at_mle(nb$fit, d, rd$response, spec$base, cands)
  rows[[name]] <- data.frame(
    case = name, data = spec$data, base = paste(spec$base, collapse = " "), term = cands, df = rao$Df[keep],
    theta = nb$theta, rao_column = names(rao)[4], lrt_column = names(lrt)[4],
    rao_add1 = rao[["Rao score"]][keep], rao_at_mle = unname(at[cands]),
    rao_pvalue_at_mle = pchisq(unname(at[cands]), rao$Df[keep], lower.tail = FALSE),
    lrt = lrt[["LRT"]][keep], lrt_pvalue = lrt[["Pr(>Chi)"]][keep], stringsAsFactors = FALSE)
}
rm(".refdata", envir = globalenv())
write_ref(do.call(rbind, rows), "negbin_add1.csv")

## step() on glm.nb: add1 ranks the candidates at the current theta, update() refits with
## theta re-estimated (init.theta = the current one)
rd <- read_case("quine")
d <- rd$data
f0 <- glm.nb(Days ~ 1, data = d, control = CTL)
st <- step(f0, scope = list(lower = ~1, upper = ~Eth + Sex + Age + Lrn), direction = "forward", trace = 0)
moves <- st$anova
write_ref(data.frame(case = "quine_forward_aic", step = seq_len(nrow(moves)) - 1L,
                     term = sub("^\\+ ", "", trimws(as.character(moves$Step))), aic = moves$AIC,
                     final_theta = st$theta, final_twologlik = st$twologlik, stringsAsFactors = FALSE),
          "negbin_step.csv")
writeLines(session_line(), file.path(REF, "negbin.session.txt"))
