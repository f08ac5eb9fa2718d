package store

// LayoutDone is layoutDone, for the tests of package store_test.
const LayoutDone = layoutDone
