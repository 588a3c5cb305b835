## R's add1() on GLMs: score (Rao) and likelihood-ratio statistics of every candidate term,
## single-column and factor, against a base model.
## Run from the repository root (after data.R):   Rscript tests/reference/add1_glm.R
## Writes tests/reference/add1_cases.csv and add1.csv.
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

BASES <- ADD1_BASES

cases <- rows <- list()
for (data in names(BASES)) {
  ds <- load_dataset(data)
  assign(".refdata", ds$data, envir = globalenv())
  for (base in BASES[[data]]) {
    case <- paste0(data, "_", if (length(base)) paste(base, collapse = "-") else "null")
    fit0 <- eval(bquote(glm(.(reformulate(rhs_of(base), ds$response)), family = .(as.name(ds$family)),
                            data = .refdata, control = CTL)))
    scope <- reformulate(ds$candidates, ds$response)
    for (test in c("Rao", "LRT")) {
      a <- with_glm_warnings(add1(fit0, scope, test = test))$value
      stat_col <- if (test == "Rao") "Rao score" else "LRT"
      keep <- rownames(a) != "<none>"
      rows[[paste(case, test)]] <- data.frame(
        case = case, test = test, term = trimws(rownames(a)[keep]), df = a$Df[keep],
        deviance = a$Deviance[keep], aic = a$AIC[keep], statistic = a[[stat_col]][keep],
        pvalue = a[["Pr(>Chi)"]][keep], stringsAsFactors = FALSE)
      if (test == "Rao") {
        cands <- rows[[paste(case, test)]]$term
        stat <- rao_at_mle(fit0, ds$data, ds$response, base, cands, family_of(ds$family))$score
        rows[[paste(case, test)]]$statistic_at_mle <- unname(stat[cands])
        rows[[paste(case, test)]]$pvalue_at_mle <- pchisq(unname(stat[cands]), rows[[paste(case, test)]]$df,
                                                          lower.tail = FALSE)
      } else rows[[paste(case, test)]]$statistic_at_mle <- rows[[paste(case, test)]]$pvalue_at_mle <- NA
    }
    cases[[case]] <- data.frame(
      case = case, data = data, family = ds$family, response = ds$response,
      ## for a factor response glm models its second level (fit0$y is 1 for it)
      modelled_level = if (is.factor(ds$data[[ds$response]])) levels(ds$data[[ds$response]])[2] else "",
      base = paste(base, collapse = " "), base_deviance = deviance(fit0), base_aic = fit0$aic,
      candidates = paste(setdiff(ds$candidates, base), collapse = " "),
      factors = paste(ds$factors, collapse = " "), stringsAsFactors = FALSE)
  }
}
rm(".refdata", envir = globalenv())

write_ref(do.call(rbind, cases), "add1_cases.csv")
write_ref(do.call(rbind, rows), "add1.csv")
writeLines(session_line(), file.path(REF, "add1_glm.session.txt"))
