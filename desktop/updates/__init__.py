"""Looking for a newer version of the app in a release feed (GitHub Releases API format)."""
