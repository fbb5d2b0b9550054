"""Japanese bunsetsu dependency parsing: shift-reduce (Sassano 2004), cascaded chunking (Kudo &
Matsumoto 2002), the bunsetsu chunker and their accuracy."""
