## Which level of a two-level (string/factor) binomial response glm() models as the success:
## the second level of factor(y), i.e. the second in sorted order.
## Run from the repository root (after data.R):   Rscript tests/reference/response_level.R
## Writes tests/reference/level_cases.csv and level_coef.csv.
source("tests/reference/common.R")

## rhs: the model glm fits; candidate: a column the Python test puts in a stream that it never
## tests (max_steps = 0), so that streamreg's fit is exactly glm(response ~ rhs)
CASES <- list(
  list(case = "wdbc_diagnosis", data = "wdbc", response = "diagnosis", rhs = "radius_mean",
       candidate = "texture_mean"),
  list(case = "biopsy_class", data = "biopsy", response = "class", rhs = "V2", candidate = "V3"),
  list(case = "mtcars_transmission", data = "mtcars", response = "transmission", rhs = "wt",
       candidate = "hp"),
  list(case = "infert_status", data = "infert", response = "status", rhs = "age + spontaneous",
       candidate = "parity")
)
files <- c(wdbc = "streamreg/datasets/data/wdbc.csv.gz", biopsy = file.path(DATA_DIR, "biopsy.csv"),
           mtcars = file.path(DATA_DIR, "mtcars.csv"), infert = file.path(DATA_DIR, "infert.csv"))

cases <- coefs <- list()
for (cs in CASES) {
  path <- files[[cs$data]]
  d <- if (grepl("\\.gz$", path)) read.csv(gzfile(path)) else read.csv(path)
  stopifnot(is.character(d[[cs$response]]))
  d[[cs$response]] <- factor(d[[cs$response]])
  lev <- levels(d[[cs$response]])
  stopifnot(length(lev) == 2)
  fit <- glm(reformulate(cs$rhs, cs$response), binomial, d, control = CTL)
  ## what glm treats as 1: y is the indicator of the second level (fit$y holds it)
  modelled <- unique(as.character(d[[cs$response]][fit$y == 1]))
  stopifnot(length(modelled) == 1, modelled == lev[2])
  cases[[cs$case]] <- data.frame(
    case = cs$case, data = cs$data, response = cs$response, rhs = cs$rhs, candidate = cs$candidate,
    levels = paste(lev, collapse = " "), modelled_level = modelled, n = nrow(d),
    n_modelled = sum(fit$y), loglik = as.numeric(logLik(fit)), stringsAsFactors = FALSE)
  coefs[[cs$case]] <- coef_table(fit, cs$case, character(0))
}
write_ref(do.call(rbind, cases), "level_cases.csv")
write_ref(do.call(rbind, coefs), "level_coef.csv")
writeLines(session_line(), file.path(REF, "response_level.session.txt"))
