"""Data file formats: reading records for import, writing rows for export."""
