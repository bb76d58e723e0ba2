#include "widgets/plot_export.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>

namespace rsalab {

namespace {
bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}
}  // namespace

bool savePlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error) {
  if (!plot) return fail(error, QStringLiteral("no plot to save"));
  if (width <= 0) width = plot->width();
  if (height <= 0) height = plot->height();
  const QString suffix = QFileInfo(path).suffix().toLower();
  QByteArray bytes;
  if (suffix == "png") {
    const QPixmap pixmap = plot->toPixmap(width, height, 1.0);
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (pixmap.isNull() || !pixmap.save(&buffer, "PNG")) return fail(error, "could not render " + path);
  } else if (suffix == "svg") {
    QBuffer buffer(&bytes);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(plot->objectName());
    QCPPainter painter;
    if (!painter.begin(&svg)) return fail(error, "could not render " + path);
    plot->toPainter(&painter, width, height);
    painter.end();
  } else if (suffix == "pdf") {
    // QCustomPlot writes PDFs only to a file name: render to a temporary file beside the target.
    const QString temp = path + ".part.pdf";
    if (!plot->savePdf(temp, width, height)) return fail(error, "could not write " + temp);
    QFile file(temp);
    if (!file.open(QIODevice::ReadOnly)) return fail(error, "could not read " + temp);
    bytes = file.readAll();
    file.close();
    file.remove();
  } else {
    return fail(error, path + ": unknown image type (use .png, .svg or .pdf)");
  }
  QSaveFile out(path);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
    return fail(error, "could not write " + path + ": " + out.errorString());
  }
  return true;
}

}  // namespace rsalab
