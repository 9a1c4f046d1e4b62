# (filled in by issue 22's work)
