// dial.h - a widget declared the way Qt code declares them: an export
// macro in the class head, Q_OBJECT and Q_PROPERTY lines without a ';',
// and the slots and signals access labels that moc reads.
#ifndef DIAL_H
#define DIAL_H

#include <QWidget>

class Q_WIDGETS_EXPORT Dial : public QWidget
{
    Q_OBJECT
    Q_PROPERTY(int value READ value WRITE setValue NOTIFY valueChanged)

public:
    explicit Dial(QWidget *parent = nullptr);
    ~Dial() override;

    int value() const;

public slots:
    void setValue(int value);
    void reset();

signals:
    void valueChanged(int value);

private Q_SLOTS:
    void onTimer();

private:
    int m_value = 0;
};

#endif
