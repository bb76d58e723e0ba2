# SPDX-License-Identifier: GPL-3.0-or-later
# Reference numbers for the forecasting anchors (engine/core/forecast/forecast.h), computed with R's
# forecast package. Run by hand from the repository root (CI never runs R):
#
#   Rscript scripts/anchors-r.R        # writes tests/data/anchors_r.csv
#
# Needs r-base-core and r-cran-forecast (written against forecast 8.20). anchorsAgreeWithR in
# tests/test_real_series.cpp compares the engine's anchors with the fixture this writes.
# After it (or after a change to the anchors' fits), refresh R's own checks at our fitted points:
#
#   RSALAB_WRITE_OURS=1 build/tests/test_runner_core test_anchors_r   # tests/data/anchors_ours.csv
#   Rscript scripts/anchors-r-exact.R   # anchors_r_at_ours.csv, anchors_r_exact.csv
#
# Protocol (the one forecast.h states, the one the app's models are held to): each method is
# fitted on the train part y[1:train_end] only; its parameters (and model form) are then fixed
# and it is run over the whole series, updating its state with the actual values, and every
# origin o (0-based) forecasts y[o+1] (horizon 1) from y[0..o].
#
# The split is the app's (engine/tasks/csv_series.cpp, makeCsvLayout): L rows,
# train_end = (L*70) %/% 100, validation_end = train_end + (L*15) %/% 100; validation origins
# o = train_end-1 .. validation_end-2, test origins o = validation_end-1 .. L-2 (0-based).
# MSE is in z units: mean((forecast - actual)^2) / population variance of y[0, train_end).
# fit_seconds, the last column: R's elapsed seconds (system.time) for the method's fit on the
# train part alone, not its one-step forecasts over the series.

suppressPackageStartupMessages(library(forecast))

# The app's seasonal periods: the calendar's, from the step of each file's time column
# (engine/core/io/calendar.h: YYYY-MM monthly 12, YYYY-Qn quarterly 4, YYYY-01-01 yearly 1). A C++ test
# asserts the app uses the same ones.
series_periods <- c(airpassengers = 12, lakehuron = 1, lynx = 1, nottem = 12, treering = 1,
                    ukgas = 4)
# Added monthly series, written to tests/data/r_series/ as time,value CSVs and scored into
# tests/data/anchors_r_added.csv (the bundled six's fixture stays as it was): two of the forecast
# package's own data sets (wineind, gas; GPL-3) and two of R's datasets package (ldeaths,
# USAccDeaths; GPL-2 | GPL-3), on which auto.arima chooses a seasonal difference (ldeaths with a
# drift); every one gets the fixed seasonal forms with and without drift below.
added_periods <- c(wineind = 12, gas = 12, ldeaths = 12, usaccdeaths = 12)
added_sources <- c(wineind = "wineind", gas = "gas", ldeaths = "ldeaths",
                   usaccdeaths = "USAccDeaths")

root <- "."
if (!file.exists(file.path(root, "resources/series/lynx.csv"))) {
  stop("run from the repository root: Rscript scripts/anchors-r.R")
}

# --- theta -------------------------------------------------------------------------------------
# forecast::thetaf has no model= argument, so this reimplements it with its parameters fitted on
# the train part and then fixed. Every step follows print(forecast::thetaf) in forecast 8.20:
#   * seasonality test on the train part x (as a ts of frequency m), only when m > 1, x is not
#     constant and n > 2m: r = acf(x, lag.max = m)[1..m], stat = sqrt((1 + 2 sum(r[1..m-1]^2))/n),
#     seasonal when |r[m]| / stat > qnorm(0.95) (= 1.645);
#   * if seasonal, decompose(x, "multiplicative") gives the seasonal indices decomp$figure
#     (normalised to mean 1; figure[i] belongs to rows i, i+m, ... counted from the first row),
#     unless one is within 1e-4 of zero (thetaf then falls back to the non-seasonal method);
#     the whole series is deseasonalised with the same indices, continued periodically;
#   * SES fitted on the deseasonalised train part as ses() does it: ets(x, "ANN",
#     opt.crit = "mse") gives alpha and the initial level l0;
#   * drift b = half the slope of lsfit(0:(n-1), x) on the deseasonalised train part;
#   * forecast from an origin with n_o observations at horizon h:
#       (level + b * ((h-1) + (1 - (1-alpha)^n_o) / alpha)) * seasonal index of the target.
#     thetaf's n is the length of the series the forecast is made from; with fixed parameters we
#     use n_o = o + 1, the number of observations up to the origin (so the train-end origin
#     reproduces thetaf(train) exactly, which check_theta below asserts).
theta_fit <- function(train, m) {
  n <- length(train)
  x <- ts(train, frequency = m)
  seasonal <- FALSE
  if (m > 1 && !is.constant(x) && n > 2 * m) {
    r <- as.numeric(acf(x, lag.max = m, plot = FALSE)$acf)[-1]
    stat <- sqrt((1 + 2 * sum(r[-m]^2)) / n)
    seasonal <- abs(r[m]) / stat > qnorm(0.95)
  }
  figure <- rep(1, m)
  if (seasonal) {
    decomp <- decompose(x, type = "multiplicative")
    if (any(abs(seasonal(decomp)) < 1e-4)) {
      seasonal <- FALSE
    } else {
      figure <- decomp$figure
      x <- seasadj(decomp)
    }
  }
  sesfit <- ets(x, "ANN", opt.crit = "mse")
  alpha <- max(1e-10, unname(sesfit$par["alpha"]))
  l0 <- unname(sesfit$par["l"])
  b <- unname(lsfit(0:(n - 1), as.numeric(x))$coefficients[2]) / 2
  list(seasonal = seasonal, figure = figure, alpha = alpha, l0 = l0, b = b, m = m,
       model = if (seasonal) sprintf("Theta (deseasonalised, m = %d)", m) else "Theta")
}

# One-step (h = 1) forecasts from every origin o = 0 .. L-2 (0-based) of the whole series y;
# element o+1 of the result forecasts y[o+1] (0-based), element 1 is NA.
theta_one_step <- function(th, y) {
  L <- length(y)
  s <- th$figure[(seq_len(L) - 1) %% th$m + 1]
  xd <- y / s
  fc <- rep(NA_real_, L)
  level <- th$l0
  a <- th$alpha
  for (t in seq_len(L)) {  # t: 1-based row; after the update `level` is the level at row t
    level <- level + a * (xd[t] - level)
    if (t < L) fc[t + 1] <- (level + th$b * (1 - (1 - a)^t) / a) * s[t + 1]
  }
  fc
}

# The train-end origin must give exactly thetaf(train, h = 1).
check_theta <- function(th, train, fc) {
  ref <- as.numeric(thetaf(ts(train, frequency = th$m), h = 1)$mean)
  n <- length(train)
  if (abs(ref - fc[n + 1]) > 1e-6 * max(1, abs(ref))) {
    stop(sprintf("theta emulation differs from thetaf: %.10g vs %.10g", fc[n + 1], ref))
  }
}

# --- ar_aicc -----------------------------------------------------------------------------------
# AR(p) with intercept by ordinary least squares, p = 1 .. pmax with
# pmax = min(floor(10 log10 n), n %/% 4) (ar()'s order.max, capped at a quarter of the rows).
# Every p is fitted on the same rows t = pmax+1 .. n of the train part (1-based; the first pmax
# rows are dropped for every p) so that the AICc are comparable; with N = n - pmax rows,
# sigma2 = RSS / N (the ML variance), k = p + 2 (coefficients, intercept, variance) and
#   AICc = N log(sigma2) + 2k + 2k(k+1) / (N - k - 1).
# The smallest AICc wins (ties: the smaller p); its coefficients, from that same fit, are fixed
# and give one-step forecasts c + sum_j phi_j y[o+1-j] over the whole series.
ar_fit <- function(train) {
  n <- length(train)
  pmax <- min(floor(10 * log10(n)), n %/% 4)
  if (pmax < 1) stop("too few rows for an AR fit")
  rows <- (pmax + 1):n
  N <- length(rows)
  best <- NULL
  for (p in 1:pmax) {
    X <- cbind(1, sapply(1:p, function(j) train[rows - j]))
    fit <- lm.fit(X, train[rows])
    sigma2 <- sum(fit$residuals^2) / N
    k <- p + 2
    aicc <- N * log(sigma2) + 2 * k + 2 * k * (k + 1) / (N - k - 1)
    if (is.null(best) || aicc < best$aicc) best <- list(p = p, coef = fit$coefficients, aicc = aicc)
  }
  best$model <- sprintf("AR(%d)", best$p)
  best
}

ar_one_step <- function(ar, y) {
  L <- length(y)
  p <- ar$p
  fc <- rep(NA_real_, L)
  for (t in (p + 1):L) fc[t] <- ar$coef[1] + sum(ar$coef[-1] * y[t - (1:p)])
  fc
}

source(file.path(root, "scripts/anchors-r-forms.R"))

# The added series as the app reads a CSV: a YYYY-MM time column and the values as R prints them.
series_dir <- file.path(root, "tests/data/r_series")
dir.create(series_dir, showWarnings = FALSE, recursive = TRUE)
for (name in names(added_periods)) {
  x <- get(added_sources[[name]])
  start <- tsp(x)[1]
  months <- round(start * 12) + seq_along(x) - 1
  time <- sprintf("%04d-%02d", months %/% 12, months %% 12 + 1)
  write.csv(data.frame(time = time, value = format(as.numeric(x), digits = 15, trim = TRUE)),
            file.path(series_dir, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
}
series_file <- function(name) {
  if (name %in% names(added_periods)) return(file.path(series_dir, paste0(name, ".csv")))
  file.path(root, "resources/series", paste0(name, ".csv"))
}
all_periods <- c(series_periods, added_periods)

# --- the table ---------------------------------------------------------------------------------
rows <- list()
forms <- list()
fixed <- list()
for (name in names(all_periods)) {
  d <- read.csv(series_file(name))
  y <- as.numeric(d[[2]])
  L <- length(y)
  m <- unname(all_periods[name])
  train_end <- (L * 70) %/% 100  # %/% binds tighter than *
  validation_end <- train_end + (L * 15) %/% 100
  train <- y[1:train_end]
  scale <- mean((train - mean(train))^2)  # population variance of the train part
  # fc[i] forecasts y[i] (1-based). Validation targets: 0-based train_end .. validation_end-1;
  # test targets: 0-based validation_end .. L-1.
  val <- (train_end + 1):validation_end
  test <- (validation_end + 1):L
  score <- function(fc, idx) mean((fc[idx] - y[idx])^2) / scale

  # Elapsed seconds of one fit on the train part.
  fit_time <- function(expr) unname(system.time(expr)[["elapsed"]])

  forecasts <- list()
  seconds <- fit_time(fit <- ets(ts(train, frequency = m)))
  refit <- ets(ts(y, frequency = m), model = fit, use.initial.values = TRUE)
  forecasts$ets <- list(fc = as.numeric(fitted(refit)), model = fit$method, seconds = seconds)
  forms[[length(forms) + 1]] <- ets_records(name, train, m, fit)

  seconds <- fit_time(fit <- auto.arima(ts(train, frequency = m)))
  refit <- Arima(ts(y, frequency = m), model = fit)
  forecasts$auto_arima <- list(fc = as.numeric(fitted(refit)), model = as.character(fit),
                               seconds = seconds)
  forms[[length(forms) + 1]] <- arima_records(name, train, m, fit)
  if (m > 1) fixed[[length(fixed) + 1]] <- fixed_records(name, y, train, m, test)

  seconds <- fit_time(th <- theta_fit(train, m))
  fc <- theta_one_step(th, y)
  check_theta(th, train, fc)
  forecasts$theta <- list(fc = fc, model = th$model, seconds = seconds)
  cat(sprintf("%-13s theta: seasonal %s alpha %.8g l0 %.8g b %.8g\n", name, th$seasonal,
              th$alpha, th$l0, th$b))

  seconds <- fit_time(ar <- ar_fit(train))
  forecasts$ar_aicc <- list(fc = ar_one_step(ar, y), model = ar$model, seconds = seconds)
  cat(sprintf("%-13s ar: %s aicc %.8g coef %s\n", name, ar$model, ar$aicc,
              paste(sprintf("%.6g", ar$coef), collapse = " ")))

  for (method in names(forecasts)) {
    f <- forecasts[[method]]
    rows[[length(rows) + 1]] <- data.frame(
      series = name, rows = L, period = m, train_end = train_end,
      validation_end = validation_end, horizon = 1, method = method, model = f$model,
      validation_mse = sprintf("%.12g", score(f$fc, val)),
      test_mse = sprintf("%.12g", score(f$fc, test)),
      fit_seconds = sprintf("%.3f", f$seconds))
  }
}
# Only the model column is quoted: R's model strings hold commas ("ETS(M,Ad,M)").
write_fixture <- function(table, file) {
  out <- file.path(root, "tests/data", file)
  dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
  con <- file(out, "w")
  writeLines(paste(names(table), collapse = ","), con)
  write.table(table, con, sep = ",", row.names = FALSE, col.names = FALSE,
              quote = which(names(table) == "model"))
  close(con)
  cat(sprintf("wrote %s (%s, forecast %s)\n", out, R.version.string, packageVersion("forecast")))
}
table <- do.call(rbind, rows)
print(table)
write_fixture(table[table$series %in% names(series_periods), ], "anchors_r.csv")
write_fixture(table[table$series %in% names(added_periods), ], "anchors_r_added.csv")
write_fixture(do.call(rbind, forms), "anchors_r_forms.csv")
write_fixture(do.call(rbind, fixed), "anchors_r_fixed.csv")
