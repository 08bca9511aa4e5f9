"""The Analyst face (seed 004): datasets (upload, profile, preview, delete) and runs."""
