"""The version, in a module of its own: the layers read it from here, not from the package
root, which imports the public API."""

__version__ = "1.0.0"
