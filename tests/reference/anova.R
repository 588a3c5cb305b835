## R's anova() between nested fits (anova.glmlist, anova.lmlist) and the sequential table of one
## fit (anova.glm, anova.lm), which streamreg.anova() and StreamRegResults.anova() imitate.
## Run from the repository root (after data.R):   Rscript tests/reference/anova.R
## Writes tests/reference/anova_cases.csv (one row per table: data, family, models, test) and
## anova_tables.csv (the tables, long: case, row, rowname, column, value).
##
## The Rao statistic of anova() is computed from glm.fit's working residuals and weights, and
## glm.fit returns the weights of the iterate before the last, so R's column carries the IRLS
## convergence error (~1e-7 relative, see rao_at_mle in common.R).  Comparisons are therefore
## made between fits restarted at their estimates (one step: the weights are those of the MLE),
## and the sequential tables record a second Rao column, "Rao (MLE)", computed as anova.glm does
## but with each prefix fit restarted at its estimates.
source("tests/reference/common.R")

read_data <- function(name) {
  if (name == "mtcars") {
    d <- read.csv(file.path(DATA_DIR, "mtcars_full.csv"), stringsAsFactors = FALSE)
    d$model <- NULL
    return(d)
  }
  load_dataset(name)$data
}

fam <- function(name) switch(name, binomial = binomial(), poisson = poisson(), quasipoisson = quasipoisson(),
                              gamma_log = Gamma(link = "log"), stop("unknown family ", name))

## a glm (or lm for "lm") of rhs on the data, restarted at its estimates (glm only)
fit_model <- function(d, response, rhs, family, weights = "", offset = "") {
  f <- reformulate(rhs, response)
  if (family == "lm") {
    return(if (nzchar(weights)) lm(f, data = d, weights = d[[weights]]) else lm(f, data = d))
  }
  args <- list(formula = f, family = fam(family), data = d, control = CTL)
  if (nzchar(weights)) args$weights <- d[[weights]]
  if (nzchar(offset)) args$offset <- d[[offset]]
  fit <- do.call(glm, args)
  args$start <- coef(fit)
  do.call(glm, args)
}

## the sequential table's Rao statistics as anova.glm computes them, each prefix fit restarted
## at its estimates so that its working weights are those of the MLE
sequential_rao_at_mle <- function(object) {
  x <- model.matrix(object)
  varseq <- attr(x, "assign")
  nvars <- max(0, varseq)
  y <- object$y
  w0 <- object$prior.weights
  off <- object$offset
  prefix <- function(cols) {
    z <- glm.fit(x[, cols, drop = FALSE], y, weights = w0, offset = off, family = object$family, control = CTL)
    if (ncol(x[, cols, drop = FALSE]) == 0) return(z)
    glm.fit(x[, cols, drop = FALSE], y, weights = w0, offset = off, family = object$family, control = CTL,
            start = z$coefficients)
  }
  icpt <- attr(object$terms, "intercept")
  score <- numeric(nvars)
  fit <- prefix(varseq == 0)
  for (i in seq_len(nvars)) {
    zz <- glm.fit(x[, varseq <= i, drop = FALSE], fit$residuals, fit$weights, intercept = icpt)
    score[i] <- zz$null.deviance - zz$deviance
    if (i < nvars) fit <- prefix(varseq <= i)
  }
  c(NA, score)
}

COMPARE <- list(
  birthwt = list(data = "birthwt", response = "low", family = "binomial",
                 models = list("lwt", c("lwt", "race"), c("lwt", "race", "smoke", "ht")),
                 tests = c("none", "Chisq", "LRT", "F", "Rao")),
  birthwt_down = list(data = "birthwt", response = "low", family = "binomial",
                      models = list(c("lwt", "race", "smoke", "ht"), "lwt"), tests = c("Chisq", "Rao")),
  quine = list(data = "quine", response = "Days", family = "poisson",
               models = list("Eth", c("Eth", "Age", "Lrn")), tests = c("Chisq", "Rao")),
  quine_quasi = list(data = "quine", response = "Days", family = "quasipoisson",
                     models = list("Eth", c("Eth", "Age", "Lrn"), c("Eth", "Sex", "Age", "Lrn")),
                     tests = c("F", "Chisq", "Rao")),
  mtcars_gamma = list(data = "mtcars", response = "mpg", family = "gamma_log",
                      models = list("wt", c("wt", "hp", "qsec")), tests = c("F", "Chisq")),
  ships_offset = list(data = "ships", response = "incidents", family = "poisson", offset = "log_service",
                      models = list("type", c("type", "year")), tests = c("Chisq", "Rao")),
  mtcars_lm = list(data = "mtcars", response = "mpg", family = "lm",
                   models = list("wt", c("wt", "hp"), c("wt", "hp", "qsec")), tests = c("F", "Chisq")),
  mtcars_wls = list(data = "mtcars", response = "mpg", family = "lm", weights = "cyl",
                    models = list("wt", c("wt", "hp", "qsec")), tests = c("F"))
)

SEQUENTIAL <- list(
  birthwt = list(data = "birthwt", response = "low", family = "binomial", rhs = c("lwt", "race", "smoke", "ht"),
                 tests = c("none", "Chisq", "F", "Rao")),
  birthwt_noint = list(data = "birthwt", response = "low", family = "binomial", rhs = c("0", "lwt", "smoke"),
                       tests = c("Chisq", "Rao")),
  quine = list(data = "quine", response = "Days", family = "poisson", rhs = c("Eth", "Sex", "Age", "Lrn"),
               tests = c("Chisq", "Rao")),
  quine_quasi = list(data = "quine", response = "Days", family = "quasipoisson", rhs = c("Eth", "Sex", "Age", "Lrn"),
                     tests = c("F", "Chisq")),
  mtcars_gamma = list(data = "mtcars", response = "mpg", family = "gamma_log", rhs = c("wt", "hp", "qsec"),
                      tests = c("F", "Chisq")),
  ships_offset = list(data = "ships", response = "incidents", family = "poisson", offset = "log_service",
                      rhs = c("type", "year"), tests = c("Chisq", "Rao")),
  mtcars_lm = list(data = "mtcars", response = "mpg", family = "lm", rhs = c("wt", "hp", "qsec"), tests = "F"),
  mtcars_wls = list(data = "mtcars", response = "mpg", family = "lm", weights = "cyl", rhs = c("wt", "hp", "qsec"),
                    tests = "F")
)

or_empty <- function(x) if (is.null(x)) "" else x

long_table <- function(case, tab) {
  out <- list()
  for (j in seq_along(tab)) {
    out[[j]] <- data.frame(case = case, row = seq_len(nrow(tab)), rowname = rownames(tab), column = names(tab)[j],
                           value = sprintf("%.17g", tab[[j]]), stringsAsFactors = FALSE)
  }
  d <- do.call(rbind, out)
  d$value[d$value == "NA"] <- ""
  d
}

cases <- tables <- list()
quiet <- function(expr) withCallingHandlers(expr, warning = function(w) {
  ## R warns that an F test with a fixed dispersion is inappropriate; the table is still recorded
  if (grepl("using F test with a", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  stop("unexpected warning: ", conditionMessage(w))
})
for (name in names(COMPARE)) {
  spec <- COMPARE[[name]]
  d <- read_data(spec$data)
  fits <- lapply(spec$models, function(rhs) fit_model(d, spec$response, rhs, spec$family, or_empty(spec$weights),
                                                       or_empty(spec$offset)))
  for (test in spec$tests) {
    case <- paste("compare", name, test, sep = "_")
    tab <- quiet(do.call(anova, c(fits, list(test = if (test == "none") NULL else test))))
    tables[[case]] <- long_table(case, tab)
    cases[[case]] <- data.frame(case = case, kind = "compare", data = spec$data, response = spec$response,
                                family = spec$family, models = paste(sapply(spec$models, paste, collapse = " "),
                                                                     collapse = "|"),
                                test = test, weights = or_empty(spec$weights), offset = or_empty(spec$offset),
                                stringsAsFactors = FALSE)
  }
}
for (name in names(SEQUENTIAL)) {
  spec <- SEQUENTIAL[[name]]
  d <- read_data(spec$data)
  f <- reformulate(setdiff(spec$rhs, "0"), spec$response, intercept = !("0" %in% spec$rhs))
  object <- if (spec$family == "lm") {
    if (!is.null(spec$weights)) lm(f, data = d, weights = d[[spec$weights]]) else lm(f, data = d)
  } else {
    args <- list(formula = f, family = fam(spec$family), data = d, control = CTL)
    if (!is.null(spec$offset)) args$offset <- d[[spec$offset]]
    do.call(glm, args)  # not restarted: anova.glm refits the prefixes with object$start
  }
  for (test in spec$tests) {
    case <- paste("sequential", name, test, sep = "_")
    tab <- if (spec$family == "lm") anova(object)
           else quiet(anova(object, test = if (test == "none") NULL else test))
    if (test == "Rao") tab[["Rao (MLE)"]] <- sequential_rao_at_mle(object)
    tables[[case]] <- long_table(case, tab)
    cases[[case]] <- data.frame(case = case, kind = "sequential", data = spec$data, response = spec$response,
                                family = spec$family, models = paste(spec$rhs, collapse = " "), test = test,
                                weights = or_empty(spec$weights), offset = or_empty(spec$offset),
                                stringsAsFactors = FALSE)
  }
}
write_ref(do.call(rbind, cases), "anova_cases.csv")
write_ref(do.call(rbind, tables), "anova_tables.csv")
writeLines(session_line(), file.path(REF, "anova.session.txt"))
