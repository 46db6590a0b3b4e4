"""The experiment configuration: the validated params file, its coders, each coder's scope, and the task list."""
