"""Checks of the measure itself, as the paper validates it: the stereotype contrasts of Fig. 1 (`stereotypes`) and
the toy collections and engines of §3.4 and §4.1 (`toys`); and of study planning, by simulated studies (`planning`)."""
