## Export the R data sets used by the reference scripts to tests/reference/data/*.csv,
## so that the Python tests do not need R.  Run from the repository root:
##     Rscript tests/reference/data.R
source("tests/reference/common.R")
suppressPackageStartupMessages(library(MASS))

out <- list()

bw <- MASS::birthwt
bw$race <- c("white", "black", "other")[bw$race]  # 1 = white, 2 = black, 3 = other (?birthwt)
out$birthwt <- bw[, c("low", "age", "lwt", "race", "smoke", "ptl", "ht", "ui", "ftv")]

inf <- datasets::infert
inf$education <- as.character(inf$education)
inf$status <- ifelse(inf$case == 1, "case", "control")  # a string response: glm models "control"
out$infert <- inf[, c("case", "status", "education", "age", "parity", "induced", "spontaneous")]

bi <- na.omit(MASS::biopsy)  # 683 complete rows of 699
bi$class <- as.character(bi$class)  # "benign" / "malignant"
out$biopsy <- bi[, c("class", paste0("V", 1:9))]

qu <- MASS::quine
for (v in c("Eth", "Sex", "Age", "Lrn")) qu[[v]] <- as.character(qu[[v]])
out$quine <- qu[, c("Days", "Eth", "Sex", "Age", "Lrn")]

ep <- MASS::epil
ep$trt <- as.character(ep$trt)
out$epil <- ep[, c("y", "trt", "base", "lbase", "age", "lage", "period")]

sh <- subset(MASS::ships, service > 0)  # 34 rows: ship types x construction x operation periods
sh$type <- as.character(sh$type)
sh$log_service <- log(sh$service)
out$ships <- sh[, c("incidents", "type", "year", "period", "service", "log_service")]

wb <- datasets::warpbreaks
wb$wool <- as.character(wb$wool)
wb$tension <- as.character(wb$tension)
out$warpbreaks <- wb[, c("breaks", "wool", "tension")]

mt <- datasets::mtcars
mt$transmission <- c("automatic", "manual")[mt$am + 1]
out$mtcars <- data.frame(transmission = mt$transmission, wt = mt$wt, hp = mt$hp)

out$boston <- MASS::Boston  # 506 rows, all numeric (chas 0/1): response_expressions.R, gamma_ig.R

dir.create(DATA_DIR, showWarnings = FALSE)
for (nm in names(out)) {
  path <- file.path(DATA_DIR, paste0(nm, ".csv"))
  write.csv(out[[nm]], path, row.names = FALSE)
  message("wrote ", path, " (", nrow(out[[nm]]), " rows)")
}
