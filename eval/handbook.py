"""Paragraphs of the Debian Administrator's Handbook's HTML pages, shared by
eval/independent-corpus.sh and eval/handbook-texts.sh (imported from their
embedded Python through PYTHONPATH=eval)."""
import html.parser
import re


class HandbookPage(html.parser.HTMLParser):
    """The text of each <div class="para">, without <pre> and <table> content."""
    SKIP = ('pre', 'table', 'script', 'style')

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs, self.divs, self.buffer, self.skip = [], [], None, 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        elif tag == 'div':
            starts = self.buffer is None and 'para' in (dict(attrs).get('class') or '').split()
            if starts:
                self.buffer = []
            self.divs.append(starts)

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == 'div' and self.divs and self.divs.pop():
            text = re.sub(r'\s+', ' ', ''.join(self.buffer)).strip()
            if text:
                self.paragraphs.append(text)
            self.buffer = None

    def handle_data(self, data):
        if self.buffer is not None and not self.skip:
            self.buffer.append(data)


ENGLISH = set('the and of is are that this with for you which can from will have has your when their these into should'.split())


def looks_english(paragraph):
    words = re.findall(r'\w+', paragraph.lower())
    return bool(words) and sum(w in ENGLISH for w in words) / len(words) > 0.06
