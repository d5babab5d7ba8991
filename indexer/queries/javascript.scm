; javascript: definitions and references (ours). To be filled.
