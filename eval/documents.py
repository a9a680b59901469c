"""Cuts a sequence of text pieces (paragraphs, chapters) into documents, shared by
eval/independent-corpus.sh, eval/handbook-texts.sh and eval/formulaic.sh (imported from
their embedded Python through PYTHONPATH=eval)."""


def group(pieces, target, min_last, size=len):
    """Consecutive pieces joined into documents of at least `target` (measured by
    `size`, characters by default); a last document under `min_last` joins the one
    before it. Returns a list of lists of pieces."""
    documents, current, total = [], [], 0
    for piece in pieces:
        current.append(piece)
        total += size(piece)
        if total >= target:
            documents.append(current)
            current, total = [], 0
    if current:
        if documents and total < min_last:
            documents[-1] += current
        else:
            documents.append(current)
    return documents
