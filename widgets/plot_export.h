// Writes a QCustomPlot to an image file without showing it: PNG, SVG (QSvgGenerator, vector) or
// PDF, chosen by the file suffix. Used by the sample-efficiency view and the CLI's --figures.
#pragma once

#include <QString>

class QCustomPlot;

namespace rsalab {

// Renders `plot` at width × height pixels (0: its current size) into `path` (.png, .svg, .pdf).
// The file is written to a temporary name and renamed (QSaveFile), so a failed write leaves any
// previous file intact. Returns false and fills `error` (naming the file) on failure.
bool savePlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error = nullptr);

}  // namespace rsalab
