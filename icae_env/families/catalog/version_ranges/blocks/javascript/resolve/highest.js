const PICK_LOWEST = false;
