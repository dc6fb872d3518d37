"""The ``tileorch`` user command and its subcommands."""
