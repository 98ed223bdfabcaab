"""What the nodes and the reader's stages share about the evidence: reference records and their citations
(:mod:`.refs`), sentences (:mod:`.sentences`), verified quotes (:mod:`.quotes`, :mod:`.widen`), the sentences
nearest a question (:mod:`.nearest`), the reading conversation (:mod:`.reading`), decided refusals
(:mod:`.refusal`) and the figures an answer states that no source holds (:mod:`.grounding`)."""
