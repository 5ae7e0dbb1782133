"""The errors of the Lucene retrievers: one for failures of Lucene/Java, one for bad input."""

from __future__ import annotations

from gsr.errors import GSRError, InputError


class LuceneError(GSRError):
    """Lucene/Java could not do the job: Java missing or too old, no index, a crashed or failing JVM worker."""


class LuceneInputError(LuceneError, InputError):
    """Bad input to the Lucene retrievers: a malformed document file, an unknown model or parameter."""
