"""Writes tests/data/testset/docs/timetable.pdf: a two-page PDF with a text layer, written by
hand (PDF 1.4, Helvetica, one text object per line) so the testset tests read a real PDF
through poppler. Run once: /usr/bin/python3 tools/make_test_pdf.py OUT.pdf"""
import sys

PAGES = [
    ["Harbour ferry timetable",
     "The harbour ferry sails every 20 minutes from Pier 3 between 6:00 and 23:00.",
     "On Sundays the first ferry leaves at 8:00."],
    ["Bicycles on the ferry",
     "Bicycles ride free on the harbour ferry outside the morning rush hour.",
     "Folded bicycles are always allowed."],
]


def page_stream(lines):
    out = ["BT", "/F1 12 Tf", "72 720 Td", "16 TL"]
    for line in lines:
        out.append("(%s) Tj T*" % line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)"))
    out.append("ET")
    return "\n".join(out).encode("latin-1")


def main(path):
    objects = []
    kids = " ".join("%d 0 R" % (4 + 2 * i) for i in range(len(PAGES)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(("<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(PAGES))).encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(PAGES):
        stream = page_stream(lines)
        objects.append(("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                        "<< /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)).encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    body = b"%PDF-1.4\n"
    offsets = []
    for n, obj in enumerate(objects, 1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        body += b"%010d 00000 n \n" % off
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(path, "wb") as f:
        f.write(body)


if __name__ == "__main__":
    main(sys.argv[1])
