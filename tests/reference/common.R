## Shared definitions for the R reference scripts (sourced by the other scripts).
## Run the scripts from the repository root, e.g.  Rscript tests/reference/step_glm.R
## Only base R and the recommended package MASS are used.

local({
  if (!file.exists("tests/reference/common.R") || !file.exists("streamreg/datasets/data/wdbc.csv.gz"))
    stop("run the reference scripts from the repository root: Rscript tests/reference/<script>.R")
})

REF <- "tests/reference"
DATA_DIR <- file.path(REF, "data")

## Tight IRLS convergence so that the recorded numbers are the maximum-likelihood
## values to ~1e-12, not glm()'s default 1e-8 relative deviance change.
CTL <- glm.control(epsilon = 1e-13, maxit = 100)

## The data sets: response, family, candidate terms (data columns, in this order) and which
## candidates are factors (streamreg spells them C(name); numbers stay numeric).
DATASETS <- list(
  wdbc = list(file = "streamreg/datasets/data/wdbc.csv.gz", response = "diagnosis", family = "binomial",
              factors = character(0), candidates = NULL),  # NULL: all columns but id and the response
  birthwt = list(file = file.path(DATA_DIR, "birthwt.csv"), response = "low", family = "binomial",
                 factors = "race",
                 candidates = c("age", "lwt", "race", "smoke", "ptl", "ht", "ui", "ftv")),
  infert = list(file = file.path(DATA_DIR, "infert.csv"), response = "case", family = "binomial",
                factors = "education",
                candidates = c("education", "age", "parity", "induced", "spontaneous")),
  biopsy = list(file = file.path(DATA_DIR, "biopsy.csv"), response = "class", family = "binomial",
                factors = character(0), candidates = paste0("V", 1:9)),
  quine = list(file = file.path(DATA_DIR, "quine.csv"), response = "Days", family = "poisson",
               factors = c("Eth", "Sex", "Age", "Lrn"), candidates = c("Eth", "Sex", "Age", "Lrn")),
  epil = list(file = file.path(DATA_DIR, "epil.csv"), response = "y", family = "poisson",
              factors = c("trt", "period"),
              candidates = c("trt", "base", "lbase", "age", "lage", "period")),  # not V4: it is period == 4
  ships = list(file = file.path(DATA_DIR, "ships.csv"), response = "incidents", family = "poisson",
               factors = c("type", "year", "period"),
               candidates = c("type", "year", "period", "service", "log_service")),
  warpbreaks = list(file = file.path(DATA_DIR, "warpbreaks.csv"), response = "breaks", family = "poisson",
                    factors = c("wool", "tension"), candidates = c("wool", "tension"))
)

## Read a data set exactly as the Python tests do: from the CSV, with the factor columns
## turned into factors whose levels are sorted (patsy's C() sorts levels the same way).
load_dataset <- function(name) {
  spec <- DATASETS[[name]]
  path <- spec$file
  d <- if (grepl("\\.gz$", path)) read.csv(gzfile(path), stringsAsFactors = FALSE)
       else read.csv(path, stringsAsFactors = FALSE)
  if (name == "wdbc") d$id <- NULL
  ## two-level string responses become factors, as read.csv(stringsAsFactors = TRUE) would
  ## make them: glm then models the second (sorted) level as the success
  if (is.character(d[[spec$response]])) d[[spec$response]] <- factor(d[[spec$response]])
  for (f in spec$factors) d[[f]] <- factor(d[[f]], levels = sort(unique(d[[f]])))
  cands <- spec$candidates
  if (is.null(cands)) cands <- setdiff(names(d), spec$response)
  list(data = d, response = spec$response, family = spec$family, factors = spec$factors,
       candidates = cands)
}

## add1 base models (add1_glm.R, add1_quasi.R): intercept only, and one with a few terms
## (factors included) so that the candidates are scored against a non-trivial fit
ADD1_BASES <- list(
  wdbc = list(character(0), c("perimeter_worst", "smoothness_worst")),
  birthwt = list(character(0), c("lwt", "race")),
  infert = list(character(0), c("education")),
  biopsy = list(character(0), c("V2", "V6")),
  quine = list(character(0), c("Eth", "Age")),
  epil = list(character(0), c("trt", "lbase")),
  ships = list(character(0), c("log_service", "year")),
  warpbreaks = list(character(0), c("wool"))
)

## add1.glm's Rao statistic is score = null.deviance - deviance of the weighted least-squares
## regression of the base model's working residuals on [base, candidate], with the base
## model's working *weights*; glm.fit returns the weights of the iteration before the last
## (computed from the previous iterate), so add1's number carries the IRLS convergence error
## (~1e-7 relative here even with epsilon = 1e-13).  This is the same formula with residuals
## and weights both taken at the maximum-likelihood fit: glm.fit restarted at the MLE
## converges in one step, so its weights are those of the MLE.
## Returns the statistics (named by candidate), the Pearson dispersion of the base fit at the
## MLE (a quasi family's summary.glm dispersion) and its residual degrees of freedom.
rao_at_mle <- function(fit0, data, response, base, candidates, family) {
  full <- reformulate(c("1", base, candidates), response)
  x <- model.matrix(full, model.frame(full, data))
  asgn <- attr(x, "assign")
  labels <- attr(terms(full), "term.labels")
  ousex <- asgn == 0L | labels[pmax(asgn, 1L)] %in% base
  z <- glm.fit(x[, ousex, drop = FALSE], fit0$y, start = coef(fit0), family = family, control = CTL)
  stopifnot(z$converged, z$iter == 1L)
  list(dispersion = sum(z$weights * z$residuals^2) / z$df.residual, rdf = z$df.residual,
       score = sapply(candidates, function(tt) {
         X <- x[, ousex | asgn == match(tt, labels), drop = FALSE]
         zz <- glm.fit(X, z$residuals, z$weights)
         max(0, zz$null.deviance - zz$deviance)
       }))
}

family_of <- function(name) switch(name, binomial = binomial(), poisson = poisson(),
                                   stop("unknown family ", name))

rhs_of <- function(terms) if (length(terms)) paste(terms, collapse = " + ") else "1"

## Coefficients with the pieces needed to name them in patsy/statsmodels:
## term (the variable) and level (factor level, "" for a numeric column).
coef_table <- function(fit, case, factors) {
  cf <- coef(fit)
  x <- model.matrix(fit)
  assign <- attr(x, "assign")
  labels <- c("(Intercept)", attr(terms(fit), "term.labels"))
  term <- labels[assign + 1]
  level <- character(length(cf))
  for (i in seq_along(cf)) {
    if (term[i] %in% factors) level[i] <- substring(names(cf)[i], nchar(term[i]) + 1)
  }
  data.frame(case = case, name = names(cf), term = term, level = level,
             estimate = unname(cf), stringsAsFactors = FALSE)
}

## Fail loudly on any glm() warning other than the harmless numerical one, and count those.
with_glm_warnings <- function(expr) {
  n_numeric <- 0L
  value <- withCallingHandlers(expr, warning = function(w) {
    msg <- conditionMessage(w)
    if (grepl("fitted probabilities numerically 0 or 1 occurred", msg, fixed = TRUE)) {
      n_numeric <<- n_numeric + 1L
      invokeRestart("muffleWarning")
    }
    stop("unexpected warning: ", msg)
  })
  list(value = value, n_numeric_warnings = n_numeric)
}

write_ref <- function(df, file) {
  path <- file.path(REF, file)
  write.csv(df, path, row.names = FALSE, na = "")
  message("wrote ", path, " (", nrow(df), " rows)")
}

session_line <- function() paste0(R.version.string, "; MASS ", packageVersion("MASS"),
                                  "; LC_COLLATE=", Sys.getlocale("LC_COLLATE"))
