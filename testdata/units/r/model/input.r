# Fit a model.
fit_model <- function(data, k = 2) {
  m <- lm(y ~ x, data = data)
  summary(m)
}
helper = function(x) x + 1
library(dplyr)
source("utils.R")
THRESHOLD <- 0.5
