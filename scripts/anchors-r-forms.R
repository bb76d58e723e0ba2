# SPDX-License-Identifier: GPL-3.0-or-later
# The same-form records of scripts/anchors-r.R (it sources this file): for each series, R's
# chosen ETS form and ARIMA order with their log-likelihood and AICc, R's three best ETS forms and
# three best ARIMA orders with their AICc, and (seasonal series) one-step forecasts of two seasonal
# ARIMA forms with their parameters fixed. tests/test_anchors_r.cpp checks the engine against them.
#
# Likelihood conventions, as R reports them (the loglik column):
#   ETS: loglik = -0.5 (n log(sum e^2) + 2 sum log|r_t|), r_t = the one-step forecast for
#        multiplicative errors, 1 for additive ones: no 2*pi, no n, no division of the sum by n
#        (forecast:::etsmodel; asserted below). AICc = -2 loglik + 2k + 2k(k+1)/(n-k-1) with k the
#        free parameters and initial states plus one.
#   ARIMA: the full Gaussian log-likelihood of the differenced series (n = rows after
#        differencing), constants included: -0.5 (n log(2 pi sigma2) + n + sum log F_t) at the ML
#        sigma2 (stats::arima). A drift is the regression on 1..n (coefficient "drift", the slope
#        per row); AICc counts the coefficients plus one.

# "name=value name=value ..." with 17 significant digits.
coef_text <- function(coef) {
  paste(sprintf("%s=%.17g", names(coef), unname(coef)), collapse = " ")
}

form_row <- function(series, kind, rank, model, n, loglik, aicc, coef = "") {
  data.frame(series = series, kind = kind, rank = rank, model = model, n = n,
             loglik = sprintf("%.12g", loglik), aicc = sprintf("%.12g", aicc), coef = coef)
}

# R's ets() candidates on the train part (its defaults: no multiplicative trend, no additive
# error with a multiplicative season, multiplicative parts only for positive data, a season only
# for 1 < m <= 24 with more than m rows), each fitted alone; the chosen form and the three with
# the smallest AICc.
ets_records <- function(name, train, m, chosen) {
  x <- ts(train, frequency = m)
  n <- length(train)
  e <- residuals(chosen)
  r <- if (chosen$components[1] == "M") fitted(chosen) else rep(1, n)
  lik <- n * log(sum(e^2)) + 2 * sum(log(abs(r)))
  if (abs(-2 * chosen$loglik - lik) > 1e-6 * abs(lik)) stop("ets likelihood convention changed")
  out <- list(form_row(name, "ets_chosen", 1, chosen$method, n, chosen$loglik, chosen$aicc,
                       coef_text(chosen$par)))
  positive <- min(train) > 0
  seasons <- if (m > 1 && m <= 24 && n > m) c("N", "A", if (positive) "M") else "N"
  candidates <- list()
  for (err in c("A", if (positive) "M"))
    for (trend in c("N", "A", "Ad"))
      for (season in seasons) {
        if (err == "A" && season == "M") next
        fit <- tryCatch(ets(x, model = paste0(err, substr(trend, 1, 1), season),
                            damped = trend == "Ad"), error = function(e) NULL)
        if (!is.null(fit) && is.finite(fit$aicc))
          candidates[[length(candidates) + 1]] <- fit
      }
  aicc <- sapply(candidates, function(f) f$aicc)
  for (i in seq_len(min(3, length(candidates)))) {
    f <- candidates[[order(aicc)[i]]]
    out[[length(out) + 1]] <- form_row(name, "ets_top", i, f$method, n, f$loglik, f$aicc,
                                       coef_text(f$par))
  }
  do.call(rbind, out)
}

# The smallest root modulus of 1 + sign (c_1 z + c_2 z^2 + ...), trailing |c| <= 1e-8 dropped
# (as auto.arima does); 2 when nothing is left.
trimmed_roots <- function(c, sign) {
  k <- which(abs(c) > 1e-8)
  if (!length(k)) return(2)
  min(Mod(polyroot(c(1, sign * c[seq_len(max(k))]))))
}

arima_row <- function(name, kind, rank, fit) {
  form_row(name, kind, rank, as.character(fit), fit$nobs, fit$loglik, fit$aicc,
           coef_text(fit$coef))
}

# The orders R's stepwise search visited (from its trace), each refitted by exact maximum
# likelihood (Arima's default CSS-ML) and passed over as auto.arima passes them over (a root of
# the expanded AR or MA polynomial within 1.01 of the unit circle, or no standard errors); the
# three with the smallest AICc.
arima_records <- function(name, train, m, chosen) {
  x <- ts(train, frequency = m)
  out <- list(arima_row(name, "arima_chosen", 1, chosen))
  trace <- capture.output(invisible(auto.arima(x, trace = TRUE)))
  pattern <- "^ *ARIMA\\(([0-9]),([0-9]),([0-9])\\)(\\(([0-9]),([0-9]),([0-9])\\)\\[[0-9]+\\])? *(with [a-z -]+[a-z])? *:"
  lines <- unique(regmatches(trace, regexpr(pattern, trace)))
  fits <- list()
  for (line in lines) {
    g <- as.integer(regmatches(line, gregexpr("[0-9]+", line))[[1]])
    seasonal <- if (length(g) >= 6) g[4:6] else c(0, 0, 0)
    drift <- grepl("drift", line)
    mean <- grepl("non-zero mean", line)
    fit <- tryCatch(Arima(x, order = g[1:3], seasonal = seasonal, include.drift = drift,
                          include.mean = mean), error = function(e) NULL)
    if (is.null(fit) || !is.finite(fit$aicc)) next
    if (min(trimmed_roots(fit$model$phi, -1), trimmed_roots(fit$model$theta, 1)) < 1.01) next
    if (forecast:::checkarima(fit)) next
    fits[[length(fits) + 1]] <- fit
  }
  aicc <- sapply(fits, function(f) f$aicc)
  for (i in seq_len(min(3, length(fits))))
    out[[length(out) + 1]] <- arima_row(name, "arima_top", i, fits[[order(aicc)[i]]])
  do.call(rbind, out)
}

# Two seasonal forms fitted on the train part by Arima (CSS-ML), then fixed and run over the
# whole series (Arima(y, model = fit)); their one-step forecasts of every test row. One with a
# drift, one without: the first of each list whose fit keeps every root of its expanded AR and MA
# polynomials 1.01 or more from the origin (auto.arima's rule: a seasonal MA root on the unit
# circle makes the start of the filter matter for ever).
fixed_records <- function(name, y, train, m, test) {
  candidates <- list(
    list(list(order = c(1, 0, 1), seasonal = c(0, 1, 1)),
         list(order = c(1, 0, 0), seasonal = c(1, 1, 0)),
         list(order = c(0, 0, 1), seasonal = c(1, 1, 0))),
    list(list(order = c(0, 1, 1), seasonal = c(0, 1, 1)),
         list(order = c(0, 1, 1), seasonal = c(1, 1, 0)),
         list(order = c(1, 1, 0), seasonal = c(1, 1, 0))))
  out <- list()
  for (drift in c(TRUE, FALSE)) {
    for (f in candidates[[if (drift) 1 else 2]]) {
      fit <- tryCatch(Arima(ts(train, frequency = m), order = f$order, seasonal = f$seasonal,
                            include.drift = drift), error = function(e) NULL)
      if (is.null(fit)) next
      if (min(trimmed_roots(fit$model$phi, -1), trimmed_roots(fit$model$theta, 1)) < 1.01) next
      refit <- Arima(ts(y, frequency = m), model = fit)
      fc <- as.numeric(fitted(refit))
      out[[length(out) + 1]] <- data.frame(
        series = name, model = as.character(fit), coef = coef_text(fit$coef),
        loglik = sprintf("%.12g", fit$loglik), row = test - 1,
        actual = sprintf("%.17g", y[test]), forecast = sprintf("%.17g", fc[test]))
      break
    }
  }
  do.call(rbind, out)
}
