## R's add1(test = "Rao") on quasi-family fits: the score statistic over the Pearson dispersion,
## which streamreg's test = "score-f" reports as `llr` and maps to its F statistic.
## Run from the repository root (after data.R):   Rscript tests/reference/add1_quasi.R
## Writes tests/reference/add1_quasi.csv (same cases as add1_glm.R).
source("tests/reference/common.R")

BASES <- ADD1_BASES
QUASI <- list(binomial = quasibinomial(), poisson = quasipoisson())

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
