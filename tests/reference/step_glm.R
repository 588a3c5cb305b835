## R's step() on GLMs: the sequence of moves, the criterion at every step and the final fit.
## Run from the repository root (after data.R):   Rscript tests/reference/step_glm.R
## Writes tests/reference/step_cases.csv, step_moves.csv, step_final.csv, step_coef.csv.
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

## case = data set x starting (fixed, = lower scope) terms x direction x penalty.
## The upper scope is always every candidate of the data set.
CASES <- list()
add_case <- function(data, direction, penalty, fixed = character(0)) {
  tag <- paste0(data, if (length(fixed)) paste0("_fixed-", paste(fixed, collapse = "-")) else "",
                "_", direction, "_", penalty)
  CASES[[tag]] <<- list(case = tag, data = data, fixed = fixed, direction = direction, penalty = penalty)
}
for (data in names(DATASETS))
  for (direction in c("forward", "both"))
    for (penalty in c("aic", "bic")) {
      ## wdbc is the slow case for the Python tests and its forward BIC path is its both/BIC path
      if (data == "wdbc" && direction == "forward" && penalty == "bic") next
      add_case(data, direction, penalty)
    }
add_case("birthwt", "both", "aic", fixed = "lwt")
add_case("birthwt", "forward", "bic", fixed = "race")
add_case("epil", "both", "aic", fixed = "trt")
add_case("infert", "both", "bic", fixed = "age")

cases <- moves <- finals <- coefs <- list()
for (cs in CASES) {
  ds <- load_dataset(cs$data)
  assign(".refdata", ds$data, envir = globalenv())
  n <- nrow(ds$data)
  k <- if (cs$penalty == "aic") 2 else log(n)
  lower <- reformulate(rhs_of(cs$fixed), ds$response)
  upper <- reformulate(ds$candidates, ds$response)
  fit0 <- eval(bquote(glm(.(lower), family = .(as.name(ds$family)), data = .refdata, control = CTL)))
  run <- with_glm_warnings(step(fit0, scope = list(lower = lower, upper = upper),
                                direction = cs$direction, k = k, trace = 0))
  fit <- run$value
  a <- fit$anova
  step_text <- trimws(as.character(a$Step))
  moves[[cs$case]] <- data.frame(
    case = cs$case, step = seq_len(nrow(a)) - 1L,
    action = ifelse(step_text == "", "start", ifelse(substr(step_text, 1, 1) == "+", "add", "drop")),
    term = ifelse(step_text == "", "", trimws(substring(step_text, 2))),
    df = abs(a$Df), deviance_change = abs(a$Deviance), resid_df = a[["Resid. Df"]],
    resid_dev = a[["Resid. Dev"]], criterion = a$AIC, stringsAsFactors = FALSE)
  mu <- fitted(fit)
  finals[[cs$case]] <- data.frame(
    case = cs$case, n = n, k = k, aic = fit$aic, criterion = extractAIC(fit, k = k)[2],
    loglik = as.numeric(logLik(fit)), deviance = deviance(fit), rank = fit$rank,
    converged = fit$converged, iterations = fit$iter,
    min_mu_edge = if (ds$family == "binomial") min(mu, 1 - mu) else NA,
    numeric_0_1_warnings = run$n_numeric_warnings,
    terms = paste(attr(terms(fit), "term.labels"), collapse = " "))
  coefs[[cs$case]] <- coef_table(fit, cs$case, ds$factors)
  cases[[cs$case]] <- data.frame(
    case = cs$case, data = cs$data, family = ds$family, response = ds$response,
    fixed = paste(cs$fixed, collapse = " "), candidates = paste(ds$candidates, collapse = " "),
    factors = paste(ds$factors, collapse = " "), direction = cs$direction, penalty = cs$penalty,
    stringsAsFactors = FALSE)
}
rm(".refdata", envir = globalenv())

write_ref(do.call(rbind, cases), "step_cases.csv")
write_ref(do.call(rbind, moves), "step_moves.csv")
write_ref(do.call(rbind, finals), "step_final.csv")
write_ref(do.call(rbind, coefs), "step_coef.csv")
writeLines(session_line(), file.path(REF, "step_glm.session.txt"))
