## R's add1(test = "Rao") on quasi-family fits: the score statistic over the Pearson dispersion,
## which streamreg's test = "score-f" reports as `llr` and maps to its F statistic.
## Run from the repository root (after data.R):   Rscript tests/reference/add1_quasi.R
## Writes tests/reference/add1_quasi.csv (same cases as add1_glm.R).
source("tests/reference/common.R")

BASES <- ADD1_BASES
QUASI <- list(binomial = quasibinomial(), poisson = quasipoisson())

## add1's numerator (the working-residual regression of add1.glm) with weights and residuals at
## the MLE, as in add1_glm.R: glm.fit restarted at the MLE converges in one step.
rao_at_mle <- function(fit0, data, response, base, candidates, family) {
  full <- reformulate(c("1", base, candidates), response)
  x <- model.matrix(full, model.frame(full, data))
  asgn <- attr(x, "assign")
  labels <- attr(terms(full), "term.labels")
  ousex <- asgn == 0L | labels[pmax(asgn, 1L)] %in% base
  z <- glm.fit(x[, ousex, drop = FALSE], fit0$y, start = coef(fit0), family = family, control = CTL)
  stopifnot(z$converged, z$iter == 1L)
  ## Pearson dispersion of the fit at the MLE (summary.glm's for a quasi family)
  pearson <- sum(z$weights * z$residuals^2) / z$df.residual
  list(dispersion = pearson, rdf = z$df.residual, score = sapply(candidates, function(tt) {
    X <- x[, ousex | asgn == match(tt, labels), drop = FALSE]
    zz <- glm.fit(X, z$residuals, z$weights)
    max(0, zz$null.deviance - zz$deviance)
  }))
}

rows <- list()
for (data in names(BASES)) {
  ds <- load_dataset(data)
  assign(".refdata", ds$data, envir = globalenv())
  for (base in BASES[[data]]) {
    case <- paste0(data, "_", if (length(base)) paste(base, collapse = "-") else "null")
    fam <- QUASI[[ds$family]]
    fit0 <- eval(bquote(glm(.(reformulate(rhs_of(base), ds$response)), family = .(fam),
                            data = .refdata, control = CTL)))
    scope <- reformulate(ds$candidates, ds$response)
    a <- with_glm_warnings(add1(fit0, scope, test = "Rao"))$value
    keep <- rownames(a) != "<none>"
    cands <- trimws(rownames(a)[keep])
    at <- rao_at_mle(fit0, ds$data, ds$response, base, cands, family_of(ds$family))
    scaled <- unname(at$score[cands]) / at$dispersion
    d <- a$Df[keep]
    ## the F form of the same statistic: d F = R (rdf - d) / (rdf - R), on (d, rdf - d) df
    dF <- scaled * (at$rdf - d) / (at$rdf - scaled)
    rows[[case]] <- data.frame(
      case = case, term = cands, df = d, dispersion = at$dispersion, df_resid = at$rdf,
      add1_scaled_rao = a[["scaled Rao sc."]][keep], scaled_rao_at_mle = scaled,
      f_statistic = dF, f_pvalue = pf(dF / d, d, at$rdf - d, lower.tail = FALSE), stringsAsFactors = FALSE)
  }
}
rm(".refdata", envir = globalenv())
write_ref(do.call(rbind, rows), "add1_quasi.csv")
writeLines(session_line(), file.path(REF, "add1_quasi.session.txt"))
