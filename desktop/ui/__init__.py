"""The review window. The only package that imports Qt; it displays what services return."""
