const PICK_LOWEST = true;
