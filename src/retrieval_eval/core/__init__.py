"""Pure models and rules: no file, environment, process or network access."""
