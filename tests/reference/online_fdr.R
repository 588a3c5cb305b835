## onlineFDR's levels and rejections on random p-value vectors, for streamreg.online_fdr().
## Run from the repository root, with onlineFDR installed (see README.md in this folder):
##   Rscript tests/reference/online_fdr.R
## Writes tests/reference/online_fdr_pvalues.csv, online_fdr_cases.csv, online_fdr_levels.csv
## and online_fdr.session.txt.  Numbers are written with 17 significant digits (exact doubles).
suppressPackageStartupMessages(library(onlineFDR))

REF <- "tests/reference"
if (!file.exists(file.path(REF, "online_fdr.R")))
  stop("run the reference scripts from the repository root: Rscript tests/reference/online_fdr.R")

num <- function(x) sprintf("%.17g", x)

## ------------------------------------------------------------------------------ p-values
## a mixture of uniform nulls and signals p^k (k uniform on [lo, hi]), so that levels move
## through runs of rejections and of non-rejections; "dense" reaches p of 1e-40 and below
set.seed(20240611)
mixture <- function(n, rate, lo, hi) {
  p <- runif(n)
  signal <- runif(n) < rate
  p[signal] <- p[signal]^runif(sum(signal), lo, hi)
  p
}
VECTORS <- list(
  mix200 = mixture(200, 0.2, 4, 12),
  mix1000 = mixture(1000, 0.1, 4, 12),
  null300 = runif(300),
  dense150 = mixture(150, 0.5, 4, 40)
)
pvalues <- do.call(rbind, lapply(names(VECTORS), function(v)
  data.frame(vector = v, index = seq_along(VECTORS[[v]]), pval = num(VECTORS[[v]]))))
write.csv(pvalues, file.path(REF, "online_fdr_pvalues.csv"), row.names = FALSE, quote = FALSE)

## ------------------------------------------------------------------------------ cases
## sequence "inv_square": g_j = 6 / (pi^2 j^2), j = 1..N+1 (sums to less than one); LOND's
## betai is alpha times it
inv_square <- function(n) 6 / (pi^2 * seq_len(n)^2)

## method, then the arguments given (NA: onlineFDR's default)
CASES <- list(
  list(method = "lord++", fn = "LORD"),
  list(method = "lord++", fn = "LORD", alpha = 0.1, w0 = 0.02),
  list(method = "lord++", fn = "LORD", sequence = "inv_square"),
  list(method = "lond", fn = "LOND"),
  list(method = "lond", fn = "LOND", alpha = 0.1),
  list(method = "lond", fn = "LOND", original = FALSE),
  list(method = "lond", fn = "LOND", sequence = "inv_square"),
  list(method = "saffron", fn = "SAFFRON"),
  list(method = "saffron", fn = "SAFFRON", alpha = 0.1, w0 = 0.02, lambda = 0.3),
  list(method = "saffron", fn = "SAFFRON", sequence = "inv_square"),
  list(method = "addis", fn = "ADDIS"),
  list(method = "addis", fn = "ADDIS", alpha = 0.1, w0 = 0.03, lambda = 0.1, tau = 0.8),
  list(method = "alpha-investing-fdr", fn = "Alpha_investing"),
  list(method = "alpha-investing-fdr", fn = "Alpha_investing", alpha = 0.1, w0 = 0.04),
  list(method = "alpha-spending", fn = "Alpha_spending"),
  list(method = "alpha-spending", fn = "Alpha_spending", alpha = 0.1),
  list(method = "alpha-spending", fn = "Alpha_spending", sequence = "inv_square")
)
PARAMS <- c("alpha", "w0", "lambda", "tau", "original", "sequence")

cases <- list()
levels <- list()
for (v in names(VECTORS)) {
  p <- VECTORS[[v]]
  for (spec in CASES) {
    case <- sprintf("%s/%s/%d", v, spec$method, length(cases) + 1)
    args <- list(d = p)
    for (a in intersect(c("alpha", "w0", "lambda", "tau", "original"), names(spec))) args[[a]] <- spec[[a]]
    if (!is.null(spec$sequence)) {
      g <- inv_square(length(p) + 1)
      if (spec$fn == "LOND") {
        args$betai <- (if (is.null(spec$alpha)) 0.05 else spec$alpha) * g
      } else {
        args$gammai <- g
      }
    }
    args$random <- FALSE  # no effect on a vector; said for clarity
    out <- do.call(spec$fn, args)
    stopifnot(nrow(out) == length(p), isTRUE(all.equal(as.numeric(out[[1]]), p)))
    row <- data.frame(case = case, vector = v, method = spec$method, r_function = spec$fn)
    for (a in PARAMS) row[[a]] <- if (is.null(spec[[a]])) "" else as.character(spec[[a]])
    cases[[length(cases) + 1]] <- row
    levels[[length(levels) + 1]] <- data.frame(case = case, index = seq_along(p), alphai = num(out$alphai),
                                               R = as.integer(out$R))
  }
}
write.csv(do.call(rbind, cases), file.path(REF, "online_fdr_cases.csv"), row.names = FALSE, quote = FALSE)
write.csv(do.call(rbind, levels), file.path(REF, "online_fdr_levels.csv"), row.names = FALSE, quote = FALSE)

writeLines(sprintf("%s; onlineFDR %s; Rcpp %s; LC_COLLATE=%s",
                   R.version.string, packageVersion("onlineFDR"), packageVersion("Rcpp"), Sys.getlocale("LC_COLLATE")),
           file.path(REF, "online_fdr.session.txt"))
