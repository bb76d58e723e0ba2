# SPDX-License-Identifier: GPL-3.0-or-later
# R's own computations at the two places where its optimiser or its filter stops short of ours
# (tests/test_anchors_r.cpp checks the engine against both):
#   1. tests/data/anchors_r_at_ours.csv: R's likelihood of each ETS form and ARIMA order of
#      tests/data/anchors_r_forms.csv at OUR fitted parameters (tests/data/anchors_ours.csv,
#      written by `RSALAB_WRITE_OURS=1 build/tests/test_runner_core test_anchors_r`), and whether
#      R admits them: ETS by forecast:::check.param with bounds = "both" (R's default) and its
#      non-negative multiplicative seasonal states; ARIMA by a stationary expanded AR part.
#      Where our fit is higher than R's, this shows the point is one R accepts and scores the
#      same: R's single Nelder-Mead (ETS) or BFGS (ARIMA) run stopped short of it.
#   2. tests/data/anchors_r_exact.csv: for the fixed seasonal forms of anchors_r_fixed.csv, the
#      exact one-step predictor in R: the differenced series' best linear predictor from all its
#      past (ARMAacf's autocorrelations, one dense solve per target), summed back through the
#      differencing. It is the limit R's Kalman filter approximates (arima's diffuse prior); on a
#      few forms with a seasonal MA root near the unit circle R's filter parts from it.
# Conventions as scripts/anchors-r-forms.R states them. Run from the repository root:
#   Rscript scripts/anchors-r-exact.R
suppressPackageStartupMessages(library(forecast))

periods <- c(airpassengers = 12, lakehuron = 1, lynx = 1, nottem = 12, treering = 1, ukgas = 4,
             wineind = 12, gas = 12, ldeaths = 12, usaccdeaths = 12)
added <- c("wineind", "gas", "ldeaths", "usaccdeaths")
if (!file.exists("tests/data/anchors_r_forms.csv")) {
  stop("run from the repository root: Rscript scripts/anchors-r-exact.R")
}
series_values <- function(name) {
  dir <- if (name %in% added) "tests/data/r_series" else "resources/series"
  as.numeric(read.csv(file.path(dir, paste0(name, ".csv")))[[2]])
}
train_part <- function(y) y[seq_len((length(y) * 70) %/% 100)]
coef_values <- function(text) {
  kv <- strsplit(text, " ")[[1]]
  v <- as.numeric(sub(".*=", "", kv))
  names(v) <- sub("=.*", "", kv)
  v
}
arima_order <- function(model) {
  g <- as.integer(regmatches(model, gregexpr("[0-9]+", model))[[1]])
  list(order = g[1:3], seasonal = if (length(g) >= 6) g[4:6] else c(0, 0, 0),
       drift = grepl("drift", model), mean = grepl("non-zero mean", model))
}

# R's ETS likelihood in its own convention (-0.5 (n log sum e^2 + 2 sum log|r|)) at `v`.
ets_at <- function(y, model, m, v) {
  g <- regmatches(model, regexec("ETS\\(([AM]),(N|A|Ad),([NAM])\\)", model))[[1]]
  err <- g[2]; trend <- substr(g[3], 1, 1); damped <- g[3] == "Ad"; season <- g[4]
  if (season == "N") m <- 1
  seasons <- if (season != "N") v[paste0("s", 0:(m - 2))] else NULL
  states <- c(v["l"], if (trend != "N") v["b"], seasons)
  if (season != "N") states <- c(states, m * (season == "M") - sum(seasons))
  get <- function(name) if (name %in% names(v)) v[[name]] else NULL
  admissible <- forecast:::check.param(get("alpha"), get("beta"), get("gamma"), get("phi"),
                                       c(1e-4, 1e-4, 1e-4, 0.8), c(0.9999, 0.9999, 0.9999, 0.98),
                                       "both", m) &&
    (season != "M" || min(states[(2 + (trend != "N")):length(states)]) >= 0)
  e <- forecast:::pegelsresid.C(ts(y, frequency = m), m, unname(states), err, trend, season,
                                damped, get("alpha"), get("beta"), get("gamma"),
                                if (damped) v[["phi"]] else 1, 3)
  list(loglik = -0.5 * e$lik, admissible = admissible)
}

# R's exact ARIMA likelihood (stats::arima, every coefficient fixed) at `v`.
arima_at <- function(y, model, m, v) {
  o <- arima_order(model)
  xreg <- if (o$drift) matrix(seq_along(y), ncol = 1, dimnames = list(NULL, "drift")) else NULL
  fit <- arima(ts(y, frequency = m), order = o$order,
               seasonal = list(order = o$seasonal, period = m), xreg = xreg,
               include.mean = o$mean, fixed = unname(v), transform.pars = FALSE, method = "ML")
  ar <- c(1, -fit$model$phi)
  list(loglik = fit$loglik, admissible = length(ar) == 1 || min(Mod(polyroot(ar))) > 1)
}

ours <- read.csv("tests/data/anchors_ours.csv", stringsAsFactors = FALSE)
at_ours <- do.call(rbind, lapply(seq_len(nrow(ours)), function(i) {
  o <- ours[i, ]
  y <- train_part(series_values(o$series))
  v <- coef_values(o$coef)
  r <- if (o$kind == "ets") ets_at(y, o$model, periods[[o$series]], v)
       else arima_at(y, o$model, periods[[o$series]], v)
  data.frame(series = o$series, kind = o$kind, model = o$model, coef = o$coef,
             r_loglik = sprintf("%.12g", r$loglik), r_admissible = as.integer(r$admissible))
}))

# The exact one-step predictor of the fixed forms, every test row.
expand_poly <- function(p, m) {
  r <- rep(0, (length(p) - 1) * m + 1)
  r[(seq_along(p) - 1) * m + 1] <- p
  r
}
multiply <- function(a, b) as.numeric(convolve(a, rev(b), type = "open"))
fixed <- read.csv("tests/data/anchors_r_fixed.csv", stringsAsFactors = FALSE)
keys <- unique(paste(fixed$series, fixed$model, sep = "|"))
exact <- do.call(rbind, lapply(keys, function(key) {
  rows <- fixed[paste(fixed$series, fixed$model, sep = "|") == key, ]
  name <- rows$series[1]; m <- periods[[name]]; o <- arima_order(rows$model[1])
  y <- series_values(name)
  v <- coef_values(rows$coef[1])
  pick <- function(prefix, k) if (k > 0) v[paste0(prefix, seq_len(k))] else numeric(0)
  ar <- multiply(c(1, -pick("ar", o$order[1])), expand_poly(c(1, -pick("sar", o$seasonal[1])), m))
  ma <- multiply(c(1, pick("ma", o$order[3])), expand_poly(c(1, pick("sma", o$seasonal[3])), m))
  delta <- 1
  if (o$order[2] > 0) delta <- multiply(delta, c(1, -1))
  if (o$seasonal[2] > 0) delta <- multiply(delta, expand_poly(c(1, -1), m))
  delta <- round(delta); K <- length(delta) - 1
  mu <- if (o$drift) v[["drift"]] * (o$order[2] + m * o$seasonal[2]) else 0
  w <- as.numeric(stats::filter(y, delta, sides = 1))[-seq_len(K)] - mu
  rho <- ARMAacf(ar = -ar[-1], ma = ma[-1], lag.max = length(w))
  forecast <- sapply(rows$row + 1, function(t) {  # t: the 1-based target row of y
    i <- t - K - 1                                # the past of w before the target
    f <- sum(rho[(i + 1):2] * solve(toeplitz(rho[1:i]), w[1:i])) + mu
    f - sum(delta[-1] * y[t - seq_len(K)])
  })
  data.frame(series = name, model = rows$model[1], row = rows$row,
             forecast = sprintf("%.17g", forecast))
}))

write_fixture <- function(table, file) {
  con <- file(file.path("tests/data", file), "w")
  writeLines(paste(names(table), collapse = ","), con)
  write.table(table, con, sep = ",", row.names = FALSE, col.names = FALSE,
              quote = which(names(table) == "model"))
  close(con)
  cat(sprintf("wrote tests/data/%s (%s, forecast %s)\n", file, R.version.string,
              packageVersion("forecast")))
}
write_fixture(at_ours, "anchors_r_at_ours.csv")
write_fixture(exact, "anchors_r_exact.csv")
