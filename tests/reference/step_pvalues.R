## The p-value of every move of R's step() paths, from add1()/drop1() with test = "LRT".
## Run from the repository root (after data.R and step_glm.R):   Rscript tests/reference/step_pvalues.R
## Reads step_cases.csv and step_moves.csv; writes tests/reference/step_pvalues.csv.
##
## Each case's moves are replayed from its starting model: before an addition, add1() of the
## model so far with the added term as the scope; before a removal, drop1() likewise.  At the
## final model, add1() of every candidate left (the row streamreg's history ends with is the
## best of them).  For binomial and Poisson fits (dispersion 1) add1/drop1's LRT is the deviance
## change and its p-value pchisq(LRT, Df, lower.tail = FALSE); log_p is that p-value on the log
## scale, for the far tail.
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

cases <- read.csv(file.path(REF, "step_cases.csv"), stringsAsFactors = FALSE, na.strings = "")
moves <- read.csv(file.path(REF, "step_moves.csv"), stringsAsFactors = FALSE, na.strings = "")
words <- function(x) if (is.na(x) || x == "") character(0) else strsplit(x, " ")[[1]]

lrt_row <- function(tab, term, case, step, action) {
  stat <- tab[term, "LRT"]
  df <- tab[term, "Df"]
  data.frame(case = case, step = step, action = action, term = term, df = df, statistic = stat,
             pvalue = tab[term, "Pr(>Chi)"], log_p = pchisq(stat, df, lower.tail = FALSE, log.p = TRUE),
             stringsAsFactors = FALSE)
}

out <- list()
for (i in seq_len(nrow(cases))) {
  cs <- cases[i, ]
  ds <- load_dataset(cs$data)
  assign(".refdata", ds$data, envir = globalenv())
  fam <- family_of(cs$family)
  current <- words(cs$fixed)
  fit_of <- function(terms) with_glm_warnings(
    glm(reformulate(rhs_of(terms), cs$response), family = fam, data = .refdata, control = CTL))$value
  fit <- fit_of(current)
  path <- moves[moves$case == cs$case & moves$action != "start", ]
  path <- path[order(path$step), ]
  rows <- list()
  for (j in seq_len(nrow(path))) {
    mv <- path[j, ]
    if (mv$action == "add") {
      tab <- with_glm_warnings(add1(fit, scope = mv$term, test = "LRT"))$value
      current <- c(current, mv$term)
    } else {
      tab <- with_glm_warnings(drop1(fit, scope = mv$term, test = "LRT"))$value
      current <- setdiff(current, mv$term)
    }
    rows[[j]] <- lrt_row(tab, mv$term, cs$case, mv$step, mv$action)
    fit <- fit_of(current)
  }
  left <- setdiff(words(cs$candidates), current)
  if (length(left)) {
    tab <- with_glm_warnings(add1(fit, scope = left, test = "LRT"))$value
    for (tt in left) rows[[length(rows) + 1]] <- lrt_row(tab, tt, cs$case, nrow(path) + 1, "final")
  }
  out[[cs$case]] <- do.call(rbind, rows)
}
rm(".refdata", envir = globalenv())

res <- do.call(rbind, out)
rownames(res) <- NULL
## 17 significant digits: the doubles as R computed them
num <- vapply(res, is.double, logical(1))
res[num] <- lapply(res[num], function(v) ifelse(is.na(v), NA, sprintf("%.17g", v)))
write_ref(res, "step_pvalues.csv")
writeLines(session_line(), file.path(REF, "step_pvalues.session.txt"))
