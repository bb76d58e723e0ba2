// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/plot_export.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QSvgGenerator>
#include <cmath>

#include "widgets/number_text.h"

namespace rsalab {

namespace {

QString number(double v) { return numberText(v, 17); }  // every bit: the file reopens exactly

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = QString("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString plottableName(const QCPAbstractPlottable* p, int index) {
  return p->name().isEmpty() ? QString("plottable %1").arg(index + 1) : p->name();
}

QString lastFolder() {
  const QString fallback = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return QSettings().value("paths/export", fallback).toString();
}

}  // namespace

QVector<PlotDataTable> plotData(QCustomPlot* plot, bool visible_only) {
  QVector<PlotDataTable> out;
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot->plottable(i);
    if (visible_only && !p->visible()) continue;
    const QCPRange keys = p->keyAxis() ? p->keyAxis()->range() : QCPRange(-INFINITY, INFINITY);
    const QCPRange values =
        p->valueAxis() ? p->valueAxis()->range() : QCPRange(-INFINITY, INFINITY);
    PlotDataTable t;
    t.name = plottableName(p, i);
    if (auto* map = qobject_cast<QCPColorMap*>(p)) {
      t.columns = {"x", "y", "value"};
      QCPColorMapData* d = map->data();
      for (int y = 0; y < d->valueSize(); ++y) {
        for (int x = 0; x < d->keySize(); ++x) {
          double kx = 0, vy = 0;
          d->cellToCoord(x, y, &kx, &vy);
          if (visible_only && (!keys.contains(kx) || !values.contains(vy))) continue;
          t.rows.push_back({kx, vy, d->cell(x, y)});
        }
      }
    } else if (QCPPlottableInterface1D* d = p->interface1D()) {
      t.columns = {
          p->keyAxis() && !p->keyAxis()->label().isEmpty() ? p->keyAxis()->label() : "x",
          p->valueAxis() && !p->valueAxis()->label().isEmpty() ? p->valueAxis()->label() : "y"};
      if (t.columns[0] == t.columns[1]) t.columns[1] += " (value)";
      for (int k = 0; k < d->dataCount(); ++k) {
        const double x = d->dataMainKey(k), y = d->dataMainValue(k);
        if (visible_only && !keys.contains(x)) continue;
        t.rows.push_back({x, y});
      }
    } else {
      continue;
    }
    out.push_back(t);
  }
  return out;
}

QString tablesCsv(const QVector<PlotDataTable>& tables) {
  auto quoted = [](QString s) {
    if (s.contains(',') || s.contains('"') || s.contains('\n'))
      s = '"' + s.replace("\"", "\"\"") + '"';
    return s;
  };
  QString out;
  if (tables.size() == 1) {
    QStringList header;
    for (const auto& c : tables[0].columns) header << quoted(c);
    out += header.join(',') + "\n";
    for (const auto& row : tables[0].rows) {
      QStringList cells;
      for (double v : row) cells << number(v);
      out += cells.join(',') + "\n";
    }
    return out;
  }
  QStringList columns;
  for (const auto& t : tables) {
    for (const auto& c : t.columns) {
      if (!columns.contains(c)) columns << c;
    }
  }
  QStringList header{"series"};
  for (const auto& c : columns) header << quoted(c);
  out += header.join(',') + "\n";
  for (const auto& t : tables) {
    QVector<int> where;  // table column → output column
    for (const auto& c : t.columns) where << columns.indexOf(c);
    for (const auto& row : t.rows) {
      QStringList cells(columns.size());
      for (int k = 0; k < row.size() && k < where.size(); ++k) cells[where[k]] = number(row[k]);
      out += quoted(t.name) + "," + cells.join(',') + "\n";
    }
  }
  return out;
}

QByteArray tablesJson(const QVector<PlotDataTable>& tables) {
  QJsonArray list;
  for (const auto& t : tables) {
    QJsonArray rows;
    for (const auto& row : t.rows) {
      QJsonArray cells;
      for (double v : row) cells.append(std::isfinite(v) ? QJsonValue(v) : QJsonValue());
      rows.append(cells);
    }
    list.append(QJsonObject{
        {"name", t.name}, {"columns", QJsonArray::fromStringList(t.columns)}, {"rows", rows}});
  }
  return QJsonDocument(list).toJson(QJsonDocument::Indented);
}

PlotExport::PlotExport(QCustomPlot* plot, PlotDataProvider data)
    : QObject(plot), plot_(plot), data_(std::move(data)) {
  setObjectName("PlotExport");
}

PlotExport* PlotExport::attach(QCustomPlot* plot, PlotDataProvider data) {
  auto* exporter = new PlotExport(plot, std::move(data));
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(plot, &QWidget::customContextMenuRequested, exporter,
          [exporter, plot](const QPoint& pos) {
            QMenu* menu = exporter->buildMenu(plot);
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(plot->mapToGlobal(pos));
          });
  return exporter;
}

PlotExport* PlotExport::of(const QCustomPlot* plot) {
  return plot ? plot->findChild<PlotExport*>("PlotExport", Qt::FindDirectChildrenOnly) : nullptr;
}

QVector<PlotDataTable> PlotExport::data(bool visible_only) const {
  return data_ ? data_(visible_only) : plotData(plot_, visible_only);
}

bool savePlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error,
              double pixel_ratio) {
  if (!plot) {
    if (error) *error = "no plot to save";
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  const int w = width > 0 ? width : std::max(plot->width(), 320);
  const int h = height > 0 ? height : std::max(plot->height(), 240);
  QByteArray bytes;
  if (suffix == "svg") {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(w, h));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(plot->objectName().isEmpty() ? "RSA Lab plot" : plot->objectName());
    QCPPainter painter;
    if (!painter.begin(&svg)) {
      if (error) *error = "cannot start the SVG painter";
      return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    plot->toPainter(&painter, w, h);
    painter.end();
  } else if (suffix == "png") {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!plot->toPixmap(w, h, pixel_ratio).save(&buffer, "PNG")) {
      if (error) *error = "PNG encoding failed";
      return false;
    }
  } else if (suffix == "pdf") {
    // QCustomPlot writes PDFs itself (QPdfWriter); render to a temporary name, then rename.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
      if (error) *error = QString("cannot write %1: %2").arg(path, file.errorString());
      return false;
    }
    const QString tmp = path + ".tmp.pdf";
    if (!plot->savePdf(tmp, w, h)) {
      if (error) *error = "PDF rendering failed";
      return false;
    }
    QFile rendered(tmp);
    rendered.open(QIODevice::ReadOnly);
    file.write(rendered.readAll());
    rendered.close();
    rendered.remove();
    if (!file.commit()) {
      if (error) *error = QString("cannot write %1: %2").arg(path, file.errorString());
      return false;
    }
    return true;
  } else {
    if (error) *error = QString("unknown image type \"%1\": use .png, .svg or .pdf").arg(suffix);
    return false;
  }
  return writeAtomically(path, bytes, error);
}

bool PlotExport::saveImage(const QString& path, QString* error) const {
  return savePlot(plot_, path, 0, 0, error,
                  /*pixel_ratio=*/2.0);  // twice the pixels: crisp in documents
}

bool PlotExport::saveData(const QString& path, bool visible_only, QString* error) const {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "csv") return writeAtomically(path, tablesCsv(data(visible_only)).toUtf8(), error);
  if (suffix == "json") return writeAtomically(path, tablesJson(data(visible_only)), error);
  if (error) *error = QString("unknown data type \"%1\": use .csv or .json").arg(suffix);
  return false;
}

void PlotExport::copyImage() const { QApplication::clipboard()->setPixmap(plot_->toPixmap()); }

QMenu* PlotExport::buildMenu(QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName("PlotExportMenu");
  auto add = [menu](const QString& text, const char* name, auto slot) {
    QAction* a = menu->addAction(text, slot);
    a->setObjectName(name);
    return a;
  };
  add("Copy image", "copyImage", [this] { copyImage(); });
  add("Save image (PNG, SVG, PDF)…", "saveImage", [this] { saveImageInteractively(); });
  menu->addSeparator();
  add("Export visible data (CSV, JSON)…", "exportVisible", [this] { saveDataInteractively(true); });
  add("Export all data (CSV, JSON)…", "exportAll", [this] { saveDataInteractively(false); });
  return menu;
}

void PlotExport::saveImageInteractively() {
  QString filter = "PNG image (*.png)";
  const QString path = QFileDialog::getSaveFileName(
      plot_, "Save image", lastFolder() + "/plot.png",
      "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)", &filter);
  if (path.isEmpty()) return;
  QSettings().setValue("paths/export", QFileInfo(path).absolutePath());
  QString error;
  if (!saveImage(path, &error)) {
    QMessageBox::warning(plot_, "Save image", error);
  } else {
    emit exported(path);
  }
}

void PlotExport::saveDataInteractively(bool visible_only) {
  QString filter = "CSV table (*.csv)";
  const QString path = QFileDialog::getSaveFileName(
      plot_, visible_only ? "Export visible data" : "Export all data", lastFolder() + "/data.csv",
      "CSV table (*.csv);;JSON (*.json)", &filter);
  if (path.isEmpty()) return;
  QSettings().setValue("paths/export", QFileInfo(path).absolutePath());
  QString error;
  if (!saveData(path, visible_only, &error)) {
    QMessageBox::warning(plot_, "Export data", error);
  } else {
    emit exported(path);
  }
}

}  // namespace rsalab
