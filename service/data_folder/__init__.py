"""A data folder's one owner: its exclusive lock, its identity, and the discovery file that says
where its owner serves."""
