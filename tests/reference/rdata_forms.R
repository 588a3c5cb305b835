## .RData files in the forms the gene-expression sets are published in (datamicroarray:
## list(x = data frame or matrix, y = factor)), and what R reads back from them, as CSV.
## tests/datasets/test_rdata.py reads the files with streamreg.datasets.rdata and compares.
## Run from the repository root:  Rscript tests/reference/rdata_forms.R
source("tests/reference/common.R")

x <- data.frame(g1 = c(1.5, -2, 3.25, NA), `AFFX-x_at` = c(4L, NA, 6L, 7L), check.names = FALSE)
y <- factor(c("t", "n", "t", "n"), levels = c("n", "t"))
alon <- list(x = x, y = y)                                     # a data frame of genes
golub <- list(x = as.matrix(x), y = y)                         # a matrix (R keeps the column names)
m <- matrix(c(1, 2, 3, 4, 5, 6), 2, 3, dimnames = list(c("a", "b"), c("u", "v", "w")))
s <- c("p", NA)

forms <- list(gzip_v2 = list(version = 2, compress = "gzip"), none_v2 = list(version = 2, compress = FALSE),
              bzip2_v3 = list(version = 3, compress = "bzip2"), xz_v3 = list(version = 3, compress = "xz"))
for (form in names(forms)) {
  f <- forms[[form]]
  save(alon, golub, m, s, file = file.path(REF, sprintf("rdata_forms_%s.RData", form)),
       version = f$version, compress = f$compress)
}

## what R reads back (from one of the files: all four hold the same objects)
e <- new.env()
load(file.path(REF, "rdata_forms_xz_v3.RData"), envir = e)
write.csv(data.frame(e$alon$x, check.names = FALSE), file.path(REF, "rdata_forms_x.csv"), row.names = FALSE,
          na = "")
write.csv(data.frame(label = as.character(e$alon$y), code = as.integer(e$alon$y)),
          file.path(REF, "rdata_forms_y.csv"), row.names = FALSE)
write.csv(data.frame(row = rep(rownames(e$m), ncol(e$m)), col = rep(colnames(e$m), each = nrow(e$m)),
                     value = as.vector(e$m)), file.path(REF, "rdata_forms_m.csv"), row.names = FALSE)
write.csv(data.frame(value = e$s, missing = is.na(e$s)), file.path(REF, "rdata_forms_s.csv"), row.names = FALSE,
          na = "")
writeLines(session_line(), file.path(REF, "rdata_forms.session.txt"))
