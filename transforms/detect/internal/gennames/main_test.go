package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed table is what the generator makes from the datasets,
// when they are here: $NAMES_FAKER_DIR holding
// node_modules/@faker-js/faker at fakerVersion (npm install --prefix DIR
// @faker-js/faker@10.6.0) and node; Python's faker at pyFakerVersion
// (apt-get install python3-fake-factory, or $NAMES_PYFAKER_DIR) and
// python3; the English words (apt-get install wamerican, or
// $NAMES_ENGLISH_WORDS).
func TestTableCurrent(t *testing.T) {
	dir := os.Getenv("NAMES_FAKER_DIR")
	if dir == "" {
		t.Skip("NAMES_FAKER_DIR is not set: the name table is not checked against @faker-js/faker@" + fakerVersion)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node: the name table is not checked against the dataset")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@faker-js", "faker")); err != nil {
		t.Skipf("no @faker-js/faker in %s: the name table is not checked", dir)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3: the name table is not checked against the dataset")
	}
	if _, err := os.Stat(filepath.Join(pyFakerDefault(), "faker", "providers", "person")); err != nil {
		t.Skipf("no Python faker in %s: the name table is not checked", pyFakerDefault())
	}
	english, err := EnglishWords(englishWordsDefault())
	if err != nil {
		t.Skipf("%v: the name table is not checked", err)
	}
	names, err := Dump(dir)
	if err != nil {
		t.Fatal(err)
	}
	py, err := DumpPython(pyFakerDefault())
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(names, py)
	got, stats := Build(names, english)
	t.Log(stats)
	want, err := os.ReadFile("../../names_table.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("transforms/detect/names_table.bin is not current: run go generate ./transforms/detect/")
	}
}
