"""The stages of the base study, one module per stage named as the stage."""
