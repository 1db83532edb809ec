"""posenc_lib: the small library behind the positional-encoding course."""
