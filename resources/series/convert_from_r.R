# SPDX-License-Identifier: GPL-3.0-or-later
w <- function(x, file, col) {
  t <- as.numeric(time(x)); v <- as.numeric(x)
  f <- frequency(x)
  if (f == 12) { yr <- floor(t + 1e-9); m <- round((t - yr) * 12) + 1; tt <- sprintf("%d-%02d", yr, m) }
  else if (f == 4) { yr <- floor(t + 1e-9); q <- round((t - yr) * 4) + 1; tt <- sprintf("%d-Q%d", yr, q) }
  else tt <- sprintf("%d-01-01", round(t))
  d <- data.frame(tt, v); names(d) <- c("time", col)
  write.csv(d, file, row.names = FALSE, quote = FALSE)
}
w(AirPassengers, "airpassengers.csv", "passengers_thousands")
w(lynx, "lynx.csv", "trappings")
w(LakeHuron, "lakehuron.csv", "level_feet")
w(nottem, "nottem.csv", "temperature_f")
w(UKgas, "ukgas.csv", "gas_million_therms")
w(treering, "treering.csv", "width_index")
cat(R.version.string, "\n")
