# Exports R's mtcars (all columns, row names as `model`) for the information-investing test.
# Regenerate from the repository root: Rscript tests/reference/mtcars_full.R
d <- cbind(model = rownames(mtcars), mtcars)
write.csv(d, "tests/reference/data/mtcars_full.csv", row.names = FALSE)
