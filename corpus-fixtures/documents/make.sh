#!/bin/sh
# Regenerates the document fixtures of this directory from the fixture corpus's
# plain-text suspicious documents (see README.md). Needs Debian's
# libreoffice-writer-nogui, hyphen-en-us, fonts-dejavu-core, pandoc and zip, and python3.
# Run from the repository root: corpus-fixtures/documents/make.sh
set -eu
here=corpus-fixtures/documents
texts=corpus-fixtures/pan/suspicious-documents
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One Flat ODT per text: A5 pages, justified and hyphenated paragraphs, a running
# header and a page-number footer, so that the PDF carries what extraction must
# repair. The text is written paragraph by paragraph, character for character.
python3 - "$texts" "$work" <<'PY'
import sys
from xml.sax.saxutils import escape

texts, work = sys.argv[1], sys.argv[2]
documents = [
    ("suspicious-document00007", "en", "US", "Field notes on mushroom foraging"),
    ("suspicious-document00001", "cs", "CZ", "Poznámky k historii mlýnů"),
]
for name, language, country, header in documents:
    text = open(f"{texts}/{name}.txt", encoding="utf-8").read()
    paragraphs = [p for p in text.split("\n") if p.strip()]
    body = "\n".join(f'<text:p text:style-name="Body">{escape(p)}</text:p>' for p in paragraphs)
    fodt = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:font-face-decls>
  <style:font-face style:name="DejaVu Serif" svg:font-family="'DejaVu Serif'"
   xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/>
 </office:font-face-decls>
 <office:styles>
  <style:style style:name="Body" style:family="paragraph">
   <style:paragraph-properties fo:text-align="justify" fo:margin-bottom="0.2cm"/>
   <style:text-properties style:font-name="DejaVu Serif" fo:font-size="10pt"
    fo:language="{language}" fo:country="{country}" fo:hyphenate="true"
    fo:hyphenation-remain-char-count="2" fo:hyphenation-push-char-count="2"/>
  </style:style>
  <style:style style:name="Edge" style:family="paragraph">
   <style:paragraph-properties fo:text-align="center"/>
   <style:text-properties style:font-name="DejaVu Serif" fo:font-size="8pt"/>
  </style:style>
 </office:styles>
 <office:automatic-styles>
  <style:page-layout style:name="A5">
   <style:page-layout-properties fo:page-width="14.8cm" fo:page-height="21cm"
    fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" fo:margin-right="2cm"/>
   <style:header-style><style:header-footer-properties fo:margin-bottom="0.4cm"/></style:header-style>
   <style:footer-style><style:header-footer-properties fo:margin-top="0.4cm"/></style:footer-style>
  </style:page-layout>
 </office:automatic-styles>
 <office:master-styles>
  <style:master-page style:name="Standard" style:page-layout-name="A5">
   <style:header><text:p text:style-name="Edge">{escape(header)}</text:p></style:header>
   <style:footer><text:p text:style-name="Edge"><text:page-number text:select-page="current">1</text:page-number></text:p></style:footer>
  </style:master-page>
 </office:master-styles>
 <office:body><office:text>
{body}
 </office:text></office:body>
</office:document>
"""
    open(f"{work}/{name}.fodt", "w", encoding="utf-8").write(fodt)
PY

for name in suspicious-document00007 suspicious-document00001; do
    for format in pdf docx odt; do
        soffice --headless --convert-to "$format" --outdir "$work" "$work/$name.fodt" >/dev/null
    done
    # LibreOffice's thumbnail is three quarters of an ODT's bytes; no reader needs it.
    zip -q -d "$work/$name.odt" Thumbnails/thumbnail.png
    cp "$work/$name.pdf" "$work/$name.docx" "$work/$name.odt" "$here/"
done
# HTML from the DOCX, as pandoc writes a standalone page.
pandoc -f docx -t html5 -s --metadata pagetitle=suspicious-document00007 \
    -o "$here/suspicious-document00007.html" "$here/suspicious-document00007.docx"

# Bad uploads, in bad/ so that the fixture directory itself stays a clean
# corpus: a DOCX whose text part inflates to 32 MiB (about 32 KiB on disk: a
# zip bomb by pan-detect's measure, 16 MiB at least and 100 times the file),
# and a PDF cut short in the middle.
mkdir -p "$here/bad"
python3 - "$here/bad/bomb.docx" <<'PY'
import sys
import zipfile

body = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        '<w:body><w:p><w:r><w:t>' + 'a' * (32 << 20) + '</w:t></w:r></w:p></w:body></w:document>')
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as docx:
    docx.writestr("word/document.xml", body)
PY
head -c 17000 "$here/suspicious-document00007.pdf" > "$here/bad/truncated.pdf"
