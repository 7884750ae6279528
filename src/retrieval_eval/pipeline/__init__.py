"""The one pipeline the CLI and the action share, and its parallel edge."""
