// SPDX-License-Identifier: GPL-3.0-or-later
// ElidedLabel: one line of text that never widens its parent (a status bar, a panel's bar): drawn
// elided ("…") to the width it gets, with the whole text in its tooltip while it is cut.
#pragma once

#include <QFrame>
#include <QString>

namespace rsalab {

class ElidedLabel : public QFrame {
  Q_OBJECT
 public:
  explicit ElidedLabel(const QString& text = {}, QWidget* parent = nullptr);

  void setText(const QString& text);
  QString text() const { return text_; }
  QString shownText() const;  // what is drawn at the current width
  bool isElided() const { return shownText() != text_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateToolTip();
  QString text_;
};

}  // namespace rsalab
