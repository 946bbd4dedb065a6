package policy

// PipelineEntry is one resolved step of a pipeline: what runs, with its
// options fully merged (manual 10).
type PipelineEntry struct {
	ID      string
	Type    string
	Options *Value // object
	// Required entries cannot be skipped by hints.
	Required bool
	// Detection is the detection blocks of the matched rules that have
	// one, in match order (manual 12.9.6): their allow lists and
	// dictionaries apply to the entry's detectors. Every entry of a
	// resolved pipeline shares one slice.
	Detection []*Detection
}

// HonorsHints is the policy's honor_hints, replaced by the last matched
// rule that sets one (manual 10.4).
func (p *Policy) HonorsHints(matched []*Rule) bool {
	h := p.HonorHints
	for _, r := range matched {
		if r.HonorHints != nil {
			h = *r.HonorHints
		}
	}
	return h
}

// OutputPipeline resolves the output pipeline of a call: the policy's
// transforms combined with each matched rule's by its transforms_mode, then
// options merged and hints applied. meta is nil when no primitive is
// involved.
func (p *Policy) OutputPipeline(matched []*Rule, meta *Metadata) []PipelineEntry {
	entries := append([]TransformEntry(nil), p.Transforms...)
	for _, r := range matched {
		switch r.TransformsMode {
		case ModeAppend:
			entries = append(entries, r.Transforms...)
		case ModePrepend:
			entries = append(append([]TransformEntry(nil), r.Transforms...), entries...)
		case ModeReplace:
			entries = append([]TransformEntry(nil), r.Transforms...)
		}
	}
	return p.resolve(entries, matched, meta)
}

// InputPipeline resolves the argument pipeline: the policy's
// input_transforms, every matched rule's appended, then the automatic
// depseudonymiser (manual 13), which nothing can skip.
func (p *Policy) InputPipeline(matched []*Rule, meta *Metadata) []PipelineEntry {
	entries := append([]TransformEntry(nil), p.InputTransforms...)
	for _, r := range matched {
		entries = append(entries, r.InputTransforms...)
	}
	out := p.resolve(entries, matched, meta)
	return append(out, PipelineEntry{ID: DepseudonymiseID, Type: DepseudonymiseID, Options: Object(), Required: true})
}

func (p *Policy) resolve(entries []TransformEntry, matched []*Rule, meta *Metadata) []PipelineEntry {
	var hints *Value
	if meta != nil && meta.Hints != nil && meta.Hints.Kind == ObjectValue && p.HonorsHints(matched) {
		hints = meta.Hints
	}
	var dets []*Detection
	for _, r := range matched {
		if r.Detection != nil {
			dets = append(dets, r.Detection)
		}
	}
	out := make([]PipelineEntry, 0, len(entries))
	for _, e := range entries {
		keys := typeKeys(e.Type)
		if e.ID != e.Type {
			keys = append(keys, e.ID)
		}
		opts := deepMerge(LookupTransformType(e.Type).Defaults, e.Options)
		for _, k := range keys {
			opts = mergeIfObject(opts, p.TransformOptions.Get(k))
		}
		for _, r := range matched {
			for _, k := range keys {
				opts = mergeIfObject(opts, r.TransformOptions.Get(k))
			}
		}
		required := opts.Get("required") != nil && opts.Get("required").Bool
		if hints != nil {
			if !required && skipped(hints.Get("skip"), e) {
				continue
			}
			for _, k := range keys {
				if k == "skip" {
					continue
				}
				if h := hints.Get(k); h != nil && h.Kind == ObjectValue {
					h = h.Clone()
					h.Delete("required") // hints change options, never what may be skipped
					opts = deepMerge(opts, h)
				}
			}
		}
		out = append(out, PipelineEntry{ID: e.ID, Type: e.Type, Options: opts, Required: required, Detection: dets})
	}
	return out
}

func mergeIfObject(dst, src *Value) *Value {
	if src == nil || src.Kind != ObjectValue {
		return dst
	}
	return deepMerge(dst, src)
}

func skipped(skip *Value, e TransformEntry) bool {
	if skip == nil || skip.Kind != ArrayValue {
		return false
	}
	for _, s := range skip.Array {
		if s.Kind == StringValue && (s.Text == e.ID || contains(typeKeys(e.Type), s.Text)) {
			return true
		}
	}
	return false
}

// IDs lists the entries' ids.
func IDs(entries []PipelineEntry) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ids
}

// typeKeys are the names options and hints may use for a type: its name
// and its aliases (pseudonymise, pseudonymize).
func typeKeys(typ string) []string {
	keys := []string{typ}
	for alias, canonical := range transformAliases {
		if canonical == typ {
			keys = append(keys, alias)
		}
	}
	return keys
}
