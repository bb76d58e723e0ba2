// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the widget tests: grab a widget the way the screenshots are made and check
// what the picture must show. The picture is also saved when RSALAB_WIDGET_SHOTS names a folder.
#pragma once

#include <QColor>
#include <QDir>
#include <QImage>
#include <QSet>
#include <QWidget>
#include <QtTest>
#include <cstdlib>

namespace rsalab::test {

// The widget as drawn (after posted layout requests settle); saved as NAME.png under
// $RSALAB_WIDGET_SHOTS when that is set.
inline QImage grabShot(QWidget* w, const QString& name) {
  QTest::qWait(50);
  const QImage image = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
  const QString dir = qEnvironmentVariable("RSALAB_WIDGET_SHOTS");
  if (!dir.isEmpty() && !image.isNull()) {
    QDir().mkpath(dir);
    image.save(dir + "/" + name + ".png");
  }
  return image;
}

// Pixels within `tolerance` of `color` in every channel.
inline int countColor(const QImage& image, const QColor& color, int tolerance = 12) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y) {
    const auto* row = reinterpret_cast<const QRgb*>(image.constScanLine(y));
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = row[x];
      if (std::abs(qRed(p) - color.red()) <= tolerance &&
          std::abs(qGreen(p) - color.green()) <= tolerance &&
          std::abs(qBlue(p) - color.blue()) <= tolerance)
        ++n;
    }
  }
  return n;
}

// Distinct clearly coloured (HSV saturation ≥ 80, value ≥ 40) pixel values: a drawn colour map
// has many, an empty plot or plain widgets (greys, one accent) only a few.
inline int saturatedColorCount(const QImage& image) {
  QSet<QRgb> seen;
  for (int y = 0; y < image.height(); ++y) {
    const auto* row = reinterpret_cast<const QRgb*>(image.constScanLine(y));
    for (int x = 0; x < image.width(); ++x) {
      const QColor c(row[x]);
      if (c.hsvSaturation() >= 80 && c.value() >= 40) seen.insert(row[x] & 0xFFFFFF);
    }
  }
  return static_cast<int>(seen.size());
}

}  // namespace rsalab::test
