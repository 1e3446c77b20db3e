"""The module's old name, kept only to say where its contents are now: the named parts of observation and state vectors
(`Parts`, `Layout`) are quando_env.vector_parts (a vector's parts, not a visual layout of the table)."""
raise ImportError("the module `quando_env.layout` is now `quando_env.vector_parts`: write `from "
                  "quando_env.vector_parts import Layout, Parts`")
