package dev.samsa;
class Placeholder {}
